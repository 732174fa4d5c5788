/** Product rules §1: what each permission opens and which provider types may hold it. */
export const PROVIDER_TYPES = ['platform', 'advertiser'] as const;
export type ProviderType = (typeof PROVIDER_TYPES)[number];

export const PERMISSIONS = {
  'users:register': ['platform'],
  'events:write': ['platform', 'advertiser'],
  'quest_chains:read': ['platform'],
  'account_links:write': ['platform', 'advertiser'],
  'rewards:read': ['platform'],
  'rewards:claim': ['platform'],
  'webhooks:manage': ['platform', 'advertiser'],
  // An advertiser's chain stats (docs/chain-stats.md): counts, never a user.
  'quest_chains:stats': ['advertiser'],
  // A platform's leaderboards of its users (§19).
  'leaderboards:read': ['platform'],
} as const satisfies Record<string, readonly ProviderType[]>;

export type Permission = keyof typeof PERMISSIONS;

export const isPermission = (value: string): value is Permission => Object.hasOwn(PERMISSIONS, value);

export function permissionsFor(type: ProviderType): Permission[] {
  return (Object.keys(PERMISSIONS) as Permission[]).filter((permission) =>
    (PERMISSIONS[permission] as readonly ProviderType[]).includes(type),
  );
}

/** An operation is open to some provider types and needs one permission; a few are for test credentials only (docs/test-mode.md). */
export interface Operation {
  permission: Permission;
  providerTypes: readonly ProviderType[];
  testModeOnly?: true;
}

export const OPERATIONS = {
  registerUser: { permission: 'users:register', providerTypes: ['platform'] },
  writeEvents: { permission: 'events:write', providerTypes: ['platform', 'advertiser'] },
  readActiveChains: { permission: 'quest_chains:read', providerTypes: ['platform'] },
  // Support's "why didn't it count?" (§11) reads the same progress, so the same permission.
  explainProgress: { permission: 'quest_chains:read', providerTypes: ['platform'] },
  startAccountLink: { permission: 'account_links:write', providerTypes: ['platform'] },
  completeAccountLink: { permission: 'account_links:write', providerTypes: ['advertiser'] },
  // No read permission exists for links; the platform that may create them may list them.
  listAccountLinks: { permission: 'account_links:write', providerTypes: ['platform'] },
  readRewards: { permission: 'rewards:read', providerTypes: ['platform'] },
  // A draw is part of the claim it granted: whoever may read the claims may audit it.
  readDraw: { permission: 'rewards:read', providerTypes: ['platform'] },
  claimReward: { permission: 'rewards:claim', providerTypes: ['platform'] },
  // Points (§18): a balance is what claims credited, read with the claims; a spend takes what claims gave.
  readPoints: { permission: 'rewards:read', providerTypes: ['platform'] },
  spendPoints: { permission: 'rewards:claim', providerTypes: ['platform'] },
  readChainStats: { permission: 'quest_chains:stats', providerTypes: ['advertiser'] },
  readLeaderboards: { permission: 'leaderboards:read', providerTypes: ['platform'] },
  manageWebhooks: { permission: 'webhooks:manage', providerTypes: ['platform', 'advertiser'] },
  // Deleting what a provider's test mode wrote: whoever may write its events (both types hold events:write); test credentials only.
  resetTestModeData: { permission: 'events:write', providerTypes: ['platform', 'advertiser'], testModeOnly: true },
} as const satisfies Record<string, Operation>;

export type OperationName = keyof typeof OPERATIONS;

export type AuthorizationFailure =
  | 'credential_inactive'
  | 'provider_inactive'
  | 'wrong_provider_type'
  | 'permission_missing'
  | 'test_mode_only';

/** The 403 half of §1's order: inactive (credential, then provider), then provider type, then permission, then mode. Null when allowed. */
export function authorize(
  credential: {
    status: string;
    providerStatus: string;
    providerType: ProviderType;
    permissions: readonly string[];
    livemode: boolean;
  },
  operation: Operation,
): AuthorizationFailure | null {
  if (credential.status !== 'active') return 'credential_inactive';
  if (credential.providerStatus !== 'active') return 'provider_inactive';
  if (!operation.providerTypes.includes(credential.providerType)) return 'wrong_provider_type';
  if (!credential.permissions.includes(operation.permission)) return 'permission_missing';
  if (operation.testModeOnly && credential.livemode) return 'test_mode_only';
  return null;
}
