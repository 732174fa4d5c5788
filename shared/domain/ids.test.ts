import { describe, expect, it } from 'vitest';
import { type SenderUserId, type ServiceUserId, senderUserId, serviceUserId } from './ids.js';

// The brands exist for the compiler: each `@ts-expect-error` below is a swap
// that must not compile. `npm test` type-checks this file (tsc -b
// tsconfig.test.json), so removing a brand makes an expectation unused, which
// fails the build.
const wantsService = (id: ServiceUserId) => id;
const wantsSender = (id: SenderUserId) => id;

describe('user id brands', () => {
  it("refuse a swap of the sender's user id and the service's user uuid at compile time", () => {
    const sender = senderUserId('player-1');
    const service = serviceUserId('6f1c2a52-9d3e-4a53-9a9c-0b6e4b8f2d11');
    // @ts-expect-error a sender's user id is not the service's user uuid
    wantsService(sender);
    // @ts-expect-error the service's user uuid is not a sender's user id
    wantsSender(service);
    // @ts-expect-error a bare string must be named first (at the edge: a request, a job, a row)
    wantsService('6f1c2a52-9d3e-4a53-9a9c-0b6e4b8f2d11');
    // At run time they stay the strings they were.
    expect([wantsSender(sender), wantsService(service)]).toEqual(['player-1', '6f1c2a52-9d3e-4a53-9a9c-0b6e4b8f2d11']);
  });
});
