// The extension's root folder and its parsed package.json, shared by the tests.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const extensionRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const manifest = JSON.parse(readFileSync(path.join(extensionRoot, 'package.json'), 'utf8'));
