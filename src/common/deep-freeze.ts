/**
 * Freezes a value and everything reachable from it, so that an object shared by every request
 * (reference data, cached reads) cannot be changed by one of them. Binary data is left as is:
 * typed arrays cannot be frozen.
 */
export function deepFreeze<T>(value: T): T {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value) || ArrayBuffer.isView(value)) return value;
  Object.freeze(value);
  for (const inner of Object.values(value as object)) deepFreeze(inner);
  return value;
}
