/** The CEL evaluation error, shared by every value module. */

/**
 * An evaluation error. Thrown by strict operations, held as a value by
 * non-strict ones. Errors are frequent and expected in selector evaluation
 * (a device without the attribute), so no stack trace is captured.
 */
export class CelError {
  readonly name = 'CelError';
  constructor(readonly message: string) {}
  toString(): string {
    return this.message;
  }
}
