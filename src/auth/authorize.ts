import { ForbiddenError } from '../errors';
import type { ApiKeyRecord } from './api-key-repository';
import { hasPermission, type Permission } from './permissions';

/** Throws ForbiddenError unless the caller's key holds `permission` (ADMIN implies every permission). */
export function authorize(caller: Pick<ApiKeyRecord, 'permissions'>, permission: Permission): void {
  if (!hasPermission(caller.permissions, permission)) {
    throw new ForbiddenError(`This API key lacks the ${permission} permission.`);
  }
}
