/** A fleet command that could not do its work (exit 1): an invalid tenant, a failed synth, a git error. */
export class FleetError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'FleetError';
  }
}

/** A command line the fleet does not understand (exit 2): the message says what to change. */
export class FleetUsageError extends FleetError {
  constructor(message: string) {
    super(message);
    this.name = 'FleetUsageError';
  }
}
