import { describe, expect, it } from 'vitest';
import {
  OPERATIONS,
  type Operation,
  PROVIDER_TYPES,
  type ProviderType,
  permissionsFor,
} from '../../shared/domain/permissions.js';
import { adminHeaders } from '../../shared/testing/admin-token.js';
import { createTestProvider, type TestProvider } from '../../shared/testing/fixtures.js';
import { documentedOperations } from '../testing/documented-operations.js';
import { useTestService } from '../testing/test-service.js';
import { ROUTE_TABLE } from './table.js';

// Product rules §1, for every credentialed operation of the two documents the
// app serves, generated from them: no credential, or the other kind of
// credential, answers 401; a provider the operation is not open to, or a
// credential without its permission, answers 403 (and a live credential on a
// test-only operation). A route whose guard does not follow its documented
// security fails here, whichever route it is.

const { database, api, platform, advertiser } = useTestService('route_access');

const accessOf = new Map(ROUTE_TABLE.map((entry) => [entry.route.operationId, entry.access]));
const secured = documentedOperations().filter((operation) => operation.schemes.length > 0);

/** The path with every parameter filled: the guard answers before the parameters are read. */
const concrete = (path: string) => path.replaceAll(/\{[^}]+\}/g, 'x');

const withoutPermission = new Map<string, Promise<TestProvider>>();
/** A provider of `type` whose credential holds every permission of its type but `permission`. */
const lacking = (type: ProviderType, permission: string) => {
  const key = `${type} ${permission}`;
  if (!withoutPermission.has(key))
    withoutPermission.set(
      key,
      createTestProvider(database.db, type, { permissions: permissionsFor(type).filter((held) => held !== permission) }),
    );
  return withoutPermission.get(key)!;
};
const fullyPermitted = (type: ProviderType) => (type === 'platform' ? platform : advertiser);

interface Case {
  who: string;
  headers: () => Promise<Record<string, string>> | Record<string, string>;
  status: 401 | 403;
  code: string;
}

/** The refusals an operation owes, from the access its security stands for. */
function casesFor(operation: (typeof secured)[number]): Case[] {
  const access = accessOf.get(operation.operationId);
  if (typeof access !== 'object')
    return [
      { who: 'no token', headers: () => ({}), status: 401, code: 'missing_credentials' },
      { who: 'a provider credential instead', headers: () => platform.headers, status: 401, code: 'missing_credentials' },
      {
        who: 'a wrong token',
        headers: () => ({ authorization: 'Bearer not-the-admin-token' }),
        status: 401,
        code: 'invalid_credentials',
      },
    ];
  const rule: Operation = OPERATIONS[access.operation];
  const [openTo] = rule.providerTypes;
  return [
    { who: 'no credentials', headers: () => ({}), status: 401, code: 'missing_credentials' },
    { who: 'a key without its secret', headers: () => ({ 'x-api-key': platform.key }), status: 401, code: 'missing_credentials' },
    { who: 'the admin token instead', headers: () => ({ ...adminHeaders }), status: 401, code: 'missing_credentials' },
    ...PROVIDER_TYPES.filter((type) => !rule.providerTypes.includes(type)).map(
      (type): Case => ({
        who: `${type} credentials`,
        headers: () => fullyPermitted(type).headers,
        status: 403,
        code: 'wrong_provider_type',
      }),
    ),
    {
      who: `${openTo} credentials without ${rule.permission}`,
      headers: async () => (await lacking(openTo!, rule.permission)).headers,
      status: 403,
      code: 'permission_missing',
    },
    ...(rule.testModeOnly
      ? [
          {
            who: 'a live credential',
            headers: () => fullyPermitted(openTo!).headers,
            status: 403,
            code: 'test_mode_only',
          } as const,
        ]
      : []),
  ];
}

it('finds the credentialed operations of both documents, each a route of the table with the access its security says', () => {
  expect(secured.length).toBeGreaterThan(30);
  const mismatched = secured.filter((operation) => {
    const access = accessOf.get(operation.operationId);
    return operation.schemes.includes('AdminToken') ? access !== 'admin' : typeof access !== 'object';
  });
  expect(mismatched.map((operation) => operation.operationId)).toEqual([]);
});

describe.each(secured.map((operation) => [`${operation.method} ${operation.path}`, operation] as const))('%s', (_, operation) => {
  const cases = casesFor(operation).map((refusal) => [`${refusal.status} ${refusal.code}: ${refusal.who}`, refusal] as const);
  it.each(cases)('%s', async (_label, { headers, status, code }) => {
    const answer = await api.call(operation.method, concrete(operation.path), { headers: await headers() });
    expect(answer.status, answer.text).toBe(status);
    expect(answer.json).toMatchObject({ success: false, code, error: expect.any(String) });
  });
});
