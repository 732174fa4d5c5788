/** OpenAPI security requirement of every credentialed /v1 route: both headers together. */
export const apiKeySecurity = [{ ApiKey: [], ApiSecret: [] }];
export const adminSecurity = [{ AdminToken: [] }];
