/** The Scheduler API's modelled errors: the SDK picks the exception class from `x-amzn-errortype`. */
export const ERROR_STATUS = {
  ValidationException: 400,
  ResourceNotFoundException: 404,
  ConflictException: 409,
  UnknownOperationException: 404,
} as const;
type ErrorType = keyof typeof ERROR_STATUS;

/** A modelled Scheduler error: the SDK picks the exception class from `x-amzn-errortype` and reads `Message`. */
export class ApiError extends Error {
  readonly type: ErrorType;
  constructor(type: ErrorType, message: string) {
    super(message);
    this.type = type;
  }
}
