// The one admin token of every test, e2e stack, chaos run and benchmark: each
// starts its own service, so nothing is gained by a token of its own, and one
// name lets a reader see at once that a request goes to /admin as the operator.

/** ADMIN_TOKEN of the services tests start (the config asks for 16 characters at least). */
export const TEST_ADMIN_TOKEN = 'test-admin-token-0123456789';

/** The header that opens /admin with TEST_ADMIN_TOKEN. */
export const adminHeaders: Readonly<Record<string, string>> = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };
