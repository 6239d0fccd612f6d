// What cli.ts holds of whichever transport it started: a way to know it ended and to end it.
export interface RunningTransport {
  /** Resolves when the transport has ended (client gone, or close() called). */
  closed: Promise<void>;
  /** Ends the transport; with `graceMs`, the requests it accepted are answered first (for up to that long). */
  close(graceMs?: number): Promise<void>;
}
