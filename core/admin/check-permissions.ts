import { isPermission, PERMISSIONS, type ProviderType } from '../../shared/domain/permissions.js';
import { invalidInput } from '../../shared/errors.js';

/** §1: every name must be known and holdable by the provider type; an empty list is allowed. Answers the list without repeats. */
export function checkPermissions(type: ProviderType, requested: readonly string[]): string[] {
  requested.forEach((permission, index) => {
    const param = `permissions.${index}`;
    if (!isPermission(permission)) throw invalidInput(`${param}: unknown permission "${permission}"`, param);
    if (!(PERMISSIONS[permission] as readonly string[]).includes(type)) {
      throw invalidInput(`${param}: a ${type} cannot hold "${permission}"`, param);
    }
  });
  return [...new Set(requested)];
}
