// The refusal of an /mcp request that sign-in could admit: a module of its own, so that the HTTP
// transport can recognize it without loading the authorization server (loaded only with --oauth).

/**
 * A refusal of /mcp with the challenge that leads a client to sign in: 401 when the request did not
 * authenticate, 403 `insufficient_scope` when its grant does not cover the call (the client can then
 * ask for `scope`).
 */
export class OAuthChallenge extends Error {
  constructor(
    /** The RFC 6750 error code; none when the request carried no credentials at all. */
    readonly error: string | undefined,
    description: string,
    /** For 403: the scopes to ask for (what the call needs, and what the grant has). */
    readonly scope?: readonly string[],
    readonly status: 401 | 403 = 401,
  ) {
    super(description);
  }
}
