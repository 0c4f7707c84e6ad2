// `npm run build` runs this after tsc: the files the service reads at run time beside its
// compiled code that tsc does not emit (the playground's own script and stylesheets, served by
// src/graphql/playground.ts from the folder beside it), copied to the same place under dist/.

import fs from 'node:fs';
import path from 'node:path';

/** Folders of such files, relative to the package root; their .js and .css files are copied. */
const FOLDERS = ['src/graphql/playground'];

for (const folder of FOLDERS) {
  const target = path.join('dist', folder);
  fs.rmSync(target, { recursive: true, force: true });
  fs.mkdirSync(target, { recursive: true });
  for (const name of fs.readdirSync(folder)) {
    if (/\.(?:js|css)$/.test(name)) fs.copyFileSync(path.join(folder, name), path.join(target, name));
  }
}
