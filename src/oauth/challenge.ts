// The refusal of an /mcp request that sign-in could admit: a module of its own, so that the HTTP
// transport can recognize it without loading the authorization server (loaded only with --oauth).

/** A refusal of /mcp: 401 with the challenge that leads a client to sign in. */
export class OAuthChallenge extends Error {
  constructor(
    /** The RFC 6750 error code; none when the request carried no credentials at all. */
    readonly error: string | undefined,
    description: string,
  ) {
    super(description);
  }
}
