// `npm run links`: fails when a Markdown link of README.md or docs/**/*.md points at a local file
// that does not exist, or at an #anchor that no heading (or <a id/name>) of its target defines.
// Anchors follow GitHub's rule: the heading's text as rendered, lower-cased, every character that
// is not a letter, a digit, a space, `-` or `_` removed, spaces turned into `-`; a repeated slug
// gets -1, -2, ... Links with a scheme (https:, mailto:) are not followed: no network.
// Usage: node scripts/check-links.mjs [file.md ...] (run from the repository root).

import fs from 'node:fs';
import path from 'node:path';

const root = process.cwd();

/** README.md and every .md under docs/, relative to the root. */
function defaultFiles() {
  const files = fs.existsSync(path.join(root, 'README.md')) ? ['README.md'] : [];
  const walk = (directory) => {
    if (!fs.existsSync(path.join(root, directory))) return;
    for (const entry of fs.readdirSync(path.join(root, directory), { withFileTypes: true })) {
      const relative = path.join(directory, entry.name);
      if (entry.isDirectory()) walk(relative);
      else if (entry.name.endsWith('.md')) files.push(relative);
    }
  };
  walk('docs');
  return files;
}

/** The lines of `text` outside fenced code blocks, with their 1-based numbers. */
function proseLines(text) {
  const lines = [];
  let fence;
  text.split('\n').forEach((line, index) => {
    const marker = /^\s{0,3}(`{3,}|~{3,})/.exec(line);
    if (marker) {
      if (fence === undefined) fence = marker[1][0];
      else if (marker[1][0] === fence) fence = undefined;
      return;
    }
    if (fence === undefined) lines.push({ number: index + 1, line });
  });
  return lines;
}

/** A heading's text as GitHub renders it: inline code, links, images, emphasis and HTML tags reduced to their text. */
function renderedText(markdown) {
  return markdown
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\[([^\]]*)\]\[[^\]]*\]/g, '$1')
    .replace(/<[^>]+>/g, '')
    .replace(/`([^`]*)`/g, '$1')
    .replace(/(\*\*|__)(.*?)\1/g, '$2')
    .replace(/(\*|_)(.*?)\1/g, '$2')
    .trim();
}

/** GitHub's anchor of a heading's rendered text. */
export function slug(text) {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** Every anchor `file` defines: its headings' slugs (numbered when repeated) and <a id|name>. */
function anchorsOf(text) {
  const anchors = new Set();
  const seen = new Map();
  const lines = proseLines(text);
  lines.forEach(({ line }, index) => {
    let heading;
    const atx = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (atx) heading = atx[1];
    const next = lines[index + 1];
    if (
      !atx &&
      line.trim() !== '' &&
      next &&
      next.number === lines[index].number + 1 &&
      /^\s{0,3}(=+|-+)\s*$/.test(next.line)
    ) {
      heading = line.trim();
    }
    if (heading !== undefined) {
      const base = slug(renderedText(heading));
      const count = seen.get(base) ?? 0;
      seen.set(base, count + 1);
      anchors.add(count === 0 ? base : `${base}-${count}`);
    }
    for (const match of line.matchAll(/<a\s[^>]*\b(?:id|name)\s*=\s*["']([^"']+)["']/gi)) anchors.add(match[1]);
  });
  return anchors;
}

/** The link targets of a line: inline links and images, reference definitions, href attributes (inline code left out). */
function targetsOf(line) {
  const prose = line.replace(/(`+)[^`]*?\1/g, '');
  const targets = [];
  for (const match of prose.matchAll(/\]\(\s*(<[^>]*>|[^)\s]+)(?:\s+"[^"]*")?\s*\)/g)) {
    targets.push(match[1].replace(/^<|>$/g, ''));
  }
  const definition = /^\s{0,3}\[[^\]]+\]:\s*(\S+)/.exec(prose);
  if (definition) targets.push(definition[1].replace(/^<|>$/g, ''));
  for (const match of prose.matchAll(/\bhref\s*=\s*["']([^"']+)["']/gi)) targets.push(match[1]);
  return targets;
}

const anchorCache = new Map();
function anchorsOfFile(file) {
  if (!anchorCache.has(file)) anchorCache.set(file, anchorsOf(fs.readFileSync(file, 'utf8')));
  return anchorCache.get(file);
}

/** What is wrong with `target` linked from `file`, or undefined when it resolves. */
function brokenReason(file, target) {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) return undefined;
  const hash = target.indexOf('#');
  const pathPart = decodeURIComponent(hash < 0 ? target : target.slice(0, hash));
  const anchor = hash < 0 ? undefined : decodeURIComponent(target.slice(hash + 1));
  const resolved = pathPart === '' ? file : path.resolve(path.dirname(file), pathPart.split('?')[0]);
  if (!fs.existsSync(resolved)) return `no file ${path.relative(root, resolved)}`;
  if (anchor === undefined || anchor === '') return undefined;
  if (fs.statSync(resolved).isDirectory() || !resolved.endsWith('.md')) return undefined;
  return anchorsOfFile(resolved).has(anchor) ? undefined : `no anchor #${anchor} in ${path.relative(root, resolved)}`;
}

const files = process.argv.length > 2 ? process.argv.slice(2) : defaultFiles();
const problems = [];
let links = 0;
for (const relative of files) {
  const file = path.resolve(root, relative);
  for (const { number, line } of proseLines(fs.readFileSync(file, 'utf8'))) {
    for (const target of targetsOf(line)) {
      links++;
      const reason = brokenReason(file, target);
      if (reason) problems.push(`${relative}:${number}: ${target}: ${reason}`);
    }
  }
}
if (problems.length > 0) {
  process.stderr.write(`${problems.join('\n')}\n${problems.length} broken link(s) in ${files.length} file(s)\n`);
  process.exit(1);
}
process.stdout.write(`links: ${links} local links and anchors in ${files.length} file(s), none broken\n`);
