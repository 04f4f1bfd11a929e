// Confluent Schema Registry errors: an HTTP status and an error_code, sent as
// `{"error_code": N, "message": "..."}` (the body Confluent's clients parse).
// Codes and messages follow Confluent's io.confluent.kafka.schemaregistry.rest.exceptions.Errors.

export class RegistryError extends Error {
  constructor(readonly status: number, readonly errorCode: number, message: string) {
    super(message);
    this.name = 'RegistryError';
  }

  body(): { error_code: number; message: string } {
    return { error_code: this.errorCode, message: this.message };
  }
}

export const subjectNotFound = (s: string): RegistryError => new RegistryError(404, 40401, `Subject '${s}' not found.`);
export const versionNotFound = (v: number | string): RegistryError => new RegistryError(404, 40402, `Version ${v} not found.`);
export const schemaNotFound = (id?: number): RegistryError => new RegistryError(404, 40403, id === undefined ? 'Schema not found' : `Schema ${id} not found`);
export const subjectSoftDeleted = (s: string): RegistryError => new RegistryError(404, 40404, `Subject '${s}' was soft deleted.Set permanent=true to delete permanently`);
export const subjectNotSoftDeleted = (s: string): RegistryError => new RegistryError(404, 40405, `Subject '${s}' was not deleted first before being permanently deleted`);
export const versionSoftDeleted = (s: string, v: number): RegistryError => new RegistryError(404, 40406, `Subject '${s}' Version ${v} was soft deleted.Set permanent=true to delete permanently`);
export const versionNotSoftDeleted = (s: string, v: number): RegistryError => new RegistryError(404, 40407, `Subject '${s}' Version ${v} was not deleted first before being permanently deleted`);
export const subjectCompatibilityNotConfigured = (s: string): RegistryError => new RegistryError(404, 40408, `Subject '${s}' does not have subject-level compatibility configured`);
export const subjectModeNotConfigured = (s: string): RegistryError => new RegistryError(404, 40409, `Subject '${s}' does not have subject-level mode configured`);
/** Confluent answers an incompatible registration with HTTP 409 and error_code 409. */
export const incompatibleSchema = (message: string): RegistryError => new RegistryError(409, 409, message);
export const invalidSchema = (message: string): RegistryError => new RegistryError(422, 42201, message);
export const invalidVersion = (v: string): RegistryError =>
  new RegistryError(422, 42202, `The specified version '${v}' is not a valid version id. Allowed values are between [1, 2^31-1] and the string "latest"`);
export const invalidCompatibility = (): RegistryError =>
  new RegistryError(422, 42203, 'Invalid compatibility level. Valid values are none, backward, forward, full, backward_transitive, forward_transitive, and full_transitive');
export const invalidMode = (m: unknown): RegistryError => new RegistryError(422, 42204, `Invalid mode ${String(m)}. Valid values are READWRITE, READONLY, IMPORT`);
export const operationNotPermitted = (message: string): RegistryError => new RegistryError(422, 42205, message);
export const referenceExists = (message: string): RegistryError => new RegistryError(422, 42206, message);
export const idDoesNotMatch = (message: string): RegistryError => new RegistryError(422, 42207, message);
export const invalidSubject = (s: string): RegistryError => new RegistryError(422, 42208, `The specified subject '${s}' is not a valid.`);
export const storeError = (message: string): RegistryError => new RegistryError(500, 50001, `Error in the backend data store: ${message}`);
export const badRequest = (message: string): RegistryError => new RegistryError(400, 400, message);
export const unauthorized = (): RegistryError => new RegistryError(401, 401, 'Unauthorized');
export const forbidden = (what: string): RegistryError => new RegistryError(403, 40301, `User is denied operation on ${what}`);
