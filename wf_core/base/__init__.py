"""Foundations every layer shares, with no workflow semantics: value records, spans and
line indexes, model locations, issues, text edits, reading files, the derived-value
mechanism of the incremental model and the collector's pauses.
"""
