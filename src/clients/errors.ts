// Failures found before anything is sent: they tell the assistant or the user what to change.

/** A required setting is missing; `variable` names what to set. */
export class MissingConfigError extends Error {
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(message);
  }
}

/** The call cannot go out as given (no project chosen, say); the message says what to pass. */
export class ToolInputError extends Error {}
