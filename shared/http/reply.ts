/** What a handler answers: status, body and headers, turned into an API Gateway v2 result by the HTTP wrapper. */
export interface Reply {
  readonly statusCode: number;
  readonly body: unknown;
  readonly headers?: Readonly<Record<string, string>>;
  /** `Set-Cookie` values (API Gateway v2 `cookies`). A string `body` is sent as is (HTML pages), anything else as JSON. */
  readonly cookies?: readonly string[];
}
