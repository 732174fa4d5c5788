// Two kinds of user id travel side by side and are both strings on the wire:
// the id a provider uses for its own user (a platform's platform_user_id, an
// advertiser's user id, an event's user_id: §3, one namespace per sender) and
// the service's own user uuid (users.id). Passing one where the other belongs
// compiled silently; branded, a swap is a type error. The brand is type-only:
// at run time both are plain strings.

declare const kind: unique symbol;
type IdOf<K extends string> = string & { readonly [kind]: K };

/** The id a provider uses for its user, in that provider's namespace (platform_user_id, advertiser_user_id, an event's user_id). */
export type SenderUserId = IdOf<'SenderUserId'>;
/** The service's uuid of a registered platform user (users.id). */
export type ServiceUserId = IdOf<'ServiceUserId'>;

/** Names a string from outside (a request, a CLI argument) as a sender's user id. */
export const senderUserId = (value: string): SenderUserId => value as SenderUserId;
/** Names a string from outside (a path, a job, a token) as the service's user uuid. */
export const serviceUserId = (value: string): ServiceUserId => value as ServiceUserId;
