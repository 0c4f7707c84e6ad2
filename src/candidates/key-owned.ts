import type { ApiKeyRecord } from '../auth/api-key-repository';
import { hasPermission } from '../auth/permissions';
import type { InputIssue } from '../errors';
import { hasRefusedCharacter, TEXT_RULES } from './text-input';

/** Characters of the name of a saved search or a saved list. */
export const MAX_NAME_LENGTH = 100;

/**
 * Whether `caller` may see what the key `ownerKeyId` made (a saved search, a partner's saved
 * list): its own, or any with ADMIN. Anything else is answered as if it did not exist (404,
 * never 403), so that ids of other keys' searches and lists tell nothing.
 */
export function ownedBy(caller: Pick<ApiKeyRecord, 'id' | 'permissions'>, ownerKeyId: string): boolean {
  return ownerKeyId === caller.id || hasPermission(caller.permissions, 'ADMIN');
}

/** The issues of a name: 1 to MAX_NAME_LENGTH characters of one line of visible text. */
export function nameIssues(name: string, parameter: string): InputIssue[] {
  const length = [...name.trim()].length;
  if (length === 0 || length > MAX_NAME_LENGTH)
    return [{ parameter, rule: `1 to ${MAX_NAME_LENGTH} characters, not blank` }];
  if (hasRefusedCharacter(name, 'line')) return [{ parameter, rule: TEXT_RULES.line }];
  return [];
}
