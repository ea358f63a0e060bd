import { ApiError } from './api-error.ts';

/** A field name the CRM does not know, with the closest real one as a hint. */
export type UnknownField = {
  path: string;
  field: string;
  did_you_mean: string | null;
};

/**
 * `400 unknown_field`: `{subject} "a" (did you mean "b"?), "c"{fix}`, ten names in the message, up to
 * 100 in `details`; `fix` brings its own leading punctuation.
 */
export function unknownFields(subject: string, unknown: UnknownField[], fix: string): ApiError {
  const shown = unknown.slice(0, 10);
  const list = shown
    .map((u) => `"${u.field}"${u.did_you_mean === null ? '' : ` (did you mean "${u.did_you_mean}"?)`}`)
    .join(', ');
  return new ApiError(
    'unknown_field',
    `${subject} ${list}${unknown.length > shown.length ? ' and more' : ''}${fix}`,
    { details: unknown.slice(0, 100) },
  );
}

/** `404 unknown_object`, with the closest real object name as a hint. */
export function unknownObject(objectName: string, didYouMean: string | null = null): ApiError {
  const shown = objectName.slice(0, 100);
  const hint = didYouMean === null ? '' : ` Did you mean "${didYouMean}"?`;
  return new ApiError(
    'unknown_object',
    `The connected org has no object named "${shown}".${hint} POST /v1/describe lists the objects it has.`,
    { details: [{ path: '/object_name', value: shown, did_you_mean: didYouMean }] },
  );
}
