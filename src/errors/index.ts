export { ApiError, type ApiErrorOptions, type ErrorDetail } from './api-error.ts';
export { type ErrorBody, toErrorBody } from './body.ts';
export { type UnknownField, unknownFields, unknownObject } from './builders.ts';
export { ERROR_CODES, ERROR_STATUS, type ErrorCode } from './codes.ts';
