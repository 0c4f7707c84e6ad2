import { isPublicId } from 'candidate-documents';
import { BadUserInputError } from '../errors';

/** The object types that implement `Node` (schema/node.graphql), and what kind of key each has. */
const NODE_KEYS = {
  Candidate: 'publicId',
  SavedList: 'publicId',
  JobOpportunity: 'publicId',
  Country: 'code',
  Language: 'code',
  Occupation: 'code',
  LanguageLevel: 'level',
  EducationLevel: 'level',
} as const;

export type NodeType = keyof typeof NODE_KEYS;

/** What a global id names: a type and that type's own key (a level as its decimal digits). */
export interface GlobalIdTarget {
  type: NodeType;
  key: string;
}

/** Ids as `Node.id` documents them: base64url without padding of `<Type>:<key>`. */
export function toGlobalId(type: NodeType, key: string | number): string {
  return Buffer.from(`${type}:${key}`, 'utf8').toString('base64url');
}

const BASE64URL = /^[A-Za-z0-9_-]+$/;
/** Longest id: the longest type name, a colon and a public id, encoded. */
const MAX_ID_LENGTH = 64;
const CODE = /^[A-Za-z0-9]{1,10}$/;
const LEVEL = /^(0|[1-9][0-9]{0,8})$/;

/**
 * The target of a global id, or null when `id` is not in the format (not base64url, no known
 * type, or a key that cannot be a key of that type). Whether the target exists is not decided here.
 */
export function parseGlobalId(id: string): GlobalIdTarget | null {
  if (id.length > MAX_ID_LENGTH || !BASE64URL.test(id)) return null;
  const text = Buffer.from(id, 'base64url').toString('utf8');
  // The canonical encoding only: another spelling of the same bytes is not the same id.
  if (Buffer.from(text, 'utf8').toString('base64url') !== id) return null;
  const colon = text.indexOf(':');
  const type = text.slice(0, colon);
  const key = text.slice(colon + 1);
  if (colon < 0 || !Object.hasOwn(NODE_KEYS, type)) return null;
  const valid = { publicId: isPublicId(key), code: CODE.test(key), level: LEVEL.test(key) }[
    NODE_KEYS[type as NodeType]
  ];
  return valid ? { type: type as NodeType, key } : null;
}

/** Most ids one `nodes` field takes, like the largest page of a search. */
export const MAX_NODE_IDS = 100;

/** The targets of `ids`, in order; BAD_USER_INPUT naming the first malformed id, or too many ids. */
export function parseGlobalIds(ids: readonly string[], parameter: 'id' | 'ids'): GlobalIdTarget[] {
  if (ids.length > MAX_NODE_IDS) {
    throw new BadUserInputError(`At most ${MAX_NODE_IDS} ids can be fetched at once.`, {
      parameter,
      rule: `at most ${MAX_NODE_IDS} ids`,
    });
  }
  return ids.map((id, index) => {
    const target = parseGlobalId(id);
    if (target === null) {
      const where = parameter === 'ids' ? `ids[${index}]` : 'id';
      throw new BadUserInputError(`${where} is not a global id of this API (see Node.id).`, {
        parameter: where,
        rule: 'a global id as Node.id gives it',
      });
    }
    return target;
  });
}
