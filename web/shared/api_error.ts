/**
 * The error every failed API call of the four browser apps throws (http.ts). No DOM here, so it is
 * testable anywhere.
 */

/** One problem with a request's input, as the servers' 400 bodies list them. */
export interface Issue {
  path: (string | number)[];
  message: string;
  code?: string;
}

export interface ApiErrorDetails {
  /** The server's machine-readable reason (`code` in the body). */
  code?: string | undefined;
  issues?: Issue[];
  /** The `x-request-id` of the answer, for a person to quote to an admin. */
  requestId?: string | undefined;
  /** The whole JSON body of the answer ({} when it had none). */
  body?: Record<string, unknown>;
}

export class ApiError extends Error {
  override readonly name = "ApiError";
  readonly code: string | undefined;
  readonly issues: Issue[];
  readonly requestId: string | undefined;
  readonly body: Record<string, unknown>;
  constructor(
    /** The HTTP status; 0 when no answer came (the network or the server is down). */
    readonly status: number,
    message: string,
    details: ApiErrorDetails = {},
  ) {
    super(message);
    this.code = details.code;
    this.issues = details.issues ?? [];
    this.requestId = details.requestId;
    this.body = details.body ?? {};
  }

  /** No answer at all: worth trying again later, unlike a refusal. */
  get offline(): boolean {
    return this.status === 0;
  }
}
