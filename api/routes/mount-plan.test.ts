import { describe, expect, it } from 'vitest';
import { planMounts } from './mount-plan.js';

const route = (method: string, path: string) => ({ route: { method, path } });
const summary = (routes: ReturnType<typeof route>[]) => {
  const plan = planMounts(routes);
  return {
    direct: plan.direct.map(({ route: { method, path } }) => `${method} ${path}`),
    behind: plan.behindWildcards.map((group) => ({
      at: `${group.method} ${group.wildcard}`,
      routes: group.entries.map(({ route: { path } }) => path),
    })),
  };
};

describe('planMounts', () => {
  it('keeps every route on the app when no parameter forks from a static segment', () => {
    const routes = [
      route('get', '/v1/things'),
      route('get', '/v1/things/{id}'),
      route('get', '/v1/things/{id}/parts'),
      route('post', '/v1/things/search'),
    ];
    expect(summary(routes)).toEqual({ direct: routes.map((r) => `${r.route.method} ${r.route.path}`), behind: [] });
  });

  it('puts the parameter side of a fork behind one wildcard per method and prefix, the static side first', () => {
    expect(
      summary([
        route('get', '/v1/points/leaderboard'),
        route('get', '/v1/points/{platformUserId}'),
        route('get', '/v1/points/{platformUserId}/history'),
        route('post', '/v1/points/{platformUserId}'),
        route('get', '/v1/other/{id}'),
      ]),
    ).toEqual({
      direct: ['get /v1/points/leaderboard', 'post /v1/points/{platformUserId}', 'get /v1/other/{id}'],
      behind: [{ at: 'get /v1/points/*', routes: ['/v1/points/{platformUserId}', '/v1/points/{platformUserId}/history'] }],
    });
  });

  it('joins a deeper fork to the group whose prefix holds it', () => {
    expect(
      summary([route('get', '/v1/a/static'), route('get', '/v1/a/{id}/b/static'), route('get', '/v1/a/{id}/b/{other}')]).behind,
    ).toEqual([{ at: 'get /v1/a/*', routes: ['/v1/a/{id}/b/static', '/v1/a/{id}/b/{other}'] }]);
  });
});
