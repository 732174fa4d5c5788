export * from './providers.js';
export * from './users.js';
export * from './events.js';
export * from './quest-chains.js';
export * from './progress.js';
export * from './account-links.js';
export * from './rewards.js';
export * from './service-secrets.js';
