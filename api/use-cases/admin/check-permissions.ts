import { isPermission, PERMISSIONS, type ProviderType } from '../../../shared/domain/permissions.js';
import { invalidInput } from '../../../shared/errors.js';

/** §1: every name must be known and holdable by the provider type; an empty list is allowed. Answers the list without repeats. */
export function checkPermissions(type: ProviderType, requested: readonly string[]): string[] {
  for (const permission of requested) {
    if (!isPermission(permission)) throw invalidInput(`permissions: unknown permission "${permission}"`);
    if (!(PERMISSIONS[permission] as readonly string[]).includes(type)) {
      throw invalidInput(`permissions: a ${type} cannot hold "${permission}"`);
    }
  }
  return [...new Set(requested)];
}
