import { MAX_NODE_IDS, parseGlobalId, parseGlobalIds, toGlobalId } from '../../src/graphql/global-id';

const PUBLIC_ID = 'anqOhLMzRR6ENxcJTfvFfw';

describe('global ids (Node.id)', () => {
  test.each([
    ['Candidate', PUBLIC_ID],
    ['SavedList', PUBLIC_ID],
    ['JobOpportunity', PUBLIC_ID],
    ['Country', 'SY'],
    ['Language', 'ar'],
    ['Occupation', '2221'],
    ['LanguageLevel', '0'],
    ['EducationLevel', '6'],
  ] as const)(
    'when a %s id is made from its key, then it is base64url without padding and reads back as that type and key',
    (type, key) => {
      const id = toGlobalId(type, key);

      expect(id).toMatch(/^[A-Za-z0-9_-]+$/);
      expect(Buffer.from(id, 'base64url').toString()).toBe(`${type}:${key}`);
      expect(parseGlobalId(id)).toEqual({ type, key });
    },
  );

  test.each([
    ['padding', `${toGlobalId('Country', 'SY')}==`],
    ['standard base64 characters', Buffer.from(`Candidate:${PUBLIC_ID.replace(/_/g, '/')}`).toString('base64')],
    [
      'a non-canonical spelling of the same bytes (trailing bits set)',
      toGlobalId('Country', 'SY').replace(/.$/, (last) => String.fromCharCode(last.charCodeAt(0) + 1)),
    ],
    ['a type that is not a Node', Buffer.from('EducationMajor:12').toString('base64url')],
    ['an inherited property name as type', Buffer.from('constructor:x').toString('base64url')],
    ['a level that is not a number', Buffer.from('LanguageLevel:1e3').toString('base64url')],
    ['a level with a leading zero', Buffer.from('EducationLevel:06').toString('base64url')],
    ['a public id of the wrong length', Buffer.from(`Candidate:${PUBLIC_ID}A`).toString('base64url')],
    ['a code with a separator', Buffer.from('Country:S:Y').toString('base64url')],
    ['no colon', Buffer.from('Country').toString('base64url')],
    ['far too long', 'A'.repeat(100)],
  ])('when an id has %s, then it is not a global id', (_case, id) => {
    expect(parseGlobalId(id)).toBeNull();
  });

  test('when more ids than MAX_NODE_IDS are given, or one is malformed, then BAD_USER_INPUT names the argument', () => {
    const good = toGlobalId('Country', 'SY');

    expect(() =>
      parseGlobalIds(
        Array.from({ length: MAX_NODE_IDS + 1 }, () => good),
        'ids',
      ),
    ).toThrow(expect.objectContaining({ code: 'BAD_USER_INPUT' }));
    expect(() => parseGlobalIds([good, 'x'], 'ids')).toThrow(/ids\[1\]/);
    expect(
      parseGlobalIds(
        Array.from({ length: MAX_NODE_IDS }, () => good),
        'ids',
      ),
    ).toHaveLength(MAX_NODE_IDS);
  });
});
