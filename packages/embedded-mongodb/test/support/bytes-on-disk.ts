import fs from 'node:fs';
import path from 'node:path';

/**
 * The files under `dir` (recursively) whose bytes contain `needle`, as paths relative to `dir`:
 * what someone reading the disk could find of a value, whatever the store says it holds.
 */
export function filesContaining(dir: string, needle: Buffer): string[] {
  const found: string[] = [];
  for (const entry of fs.readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
    const file = path.join(dir, entry);
    const stat = fs.lstatSync(file);
    if (!stat.isFile()) continue;
    if (fs.readFileSync(file).includes(needle)) found.push(entry);
  }
  return found.sort();
}

/**
 * The forms a text may take in a file: UTF-8 (what BSON and JSON hold), UTF-16 in both byte
 * orders, Latin-1 where it can, base64 and hex of its UTF-8 bytes, each as it is and lower-cased.
 */
export function encodingsOf(text: string): { name: string; bytes: Buffer }[] {
  const forms = new Map<string, Buffer>();
  for (const value of new Set([text, text.toLowerCase()])) {
    const utf8 = Buffer.from(value, 'utf8');
    const utf16le = Buffer.from(value, 'utf16le');
    const utf16be = Buffer.from(utf16le).swap16();
    forms.set(`utf8 ${value}`, utf8);
    forms.set(`utf16le ${value}`, utf16le);
    forms.set(`utf16be ${value}`, utf16be);
    if ([...value].every((c) => c.charCodeAt(0) <= 0xff)) forms.set(`latin1 ${value}`, Buffer.from(value, 'latin1'));
    forms.set(`base64 ${value}`, Buffer.from(utf8.toString('base64').replace(/=+$/, '')));
    forms.set(`hex ${value}`, Buffer.from(utf8.toString('hex')));
  }
  return [...forms].map(([name, bytes]) => ({ name, bytes }));
}
