"""Workflows written from Python and written back: the builder, the TOML/JSON exporter and
the generators of test and benchmark documents.
"""
