import { randomUUID } from 'node:crypto';
import { isPublicId, newPublicId, publicIdFromUuid } from 'candidate-documents';

describe('public ids', () => {
  it('when a public id is made, then it is 22 base64url characters', () => {
    const id = newPublicId();

    expect(id).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(isPublicId(id)).toBe(true);
  });

  it('when many public ids are made, then they are all different', () => {
    const ids = Array.from({ length: 10_000 }, () => newPublicId());

    expect(new Set(ids).size).toBe(ids.length);
  });

  it('when a public id is decoded, then it holds the 16 bytes of a UUID v4', () => {
    const bytes = Buffer.from(newPublicId(), 'base64url');

    expect(bytes).toHaveLength(16);
    expect(bytes[6] >> 4).toBe(4); // version 4
    expect(bytes[8] >> 6).toBe(0b10); // RFC 4122 variant
  });

  it('when a UUID is converted, then its bytes are kept in order', () => {
    const uuid = randomUUID();

    const id = publicIdFromUuid(uuid);

    expect(Buffer.from(id, 'base64url').toString('hex')).toBe(uuid.replace(/-/g, ''));
  });

  it('when the text is not a UUID, then converting it throws', () => {
    expect(() => publicIdFromUuid('not-a-uuid')).toThrow(TypeError);
  });

  it.each([
    ['21 characters', 'AAAAAAAAAAAAAAAAAAAAA'],
    ['23 characters', 'AAAAAAAAAAAAAAAAAAAAAAA'],
    ['a padding character', 'AAAAAAAAAAAAAAAAAAAAA='],
    ['a standard-base64 character', 'AAAAAAAAAAAAAAAAAAAAA+'],
    ['a space', 'AAAAAAAAAAA AAAAAAAAAA'],
    ['an empty string', ''],
  ])('when the text has %s, then it is not a public id', (_label, text) => {
    expect(isPublicId(text)).toBe(false);
  });

  it('when the value is not a string, then it is not a public id', () => {
    expect(isPublicId(undefined)).toBe(false);
    expect(isPublicId(12345)).toBe(false);
    expect(isPublicId({ publicId: newPublicId() })).toBe(false);
  });
});
