// Typed readers for the parts of API answers the document leaves open (an error body's `code`, the
// eligibility engine's stored result): narrowed at run time, so a page needs no cast.

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The `code` of an API error body ({detail, code}, {error, code}), when it has one. */
export function errorCode(body: unknown): string | undefined {
  return isObject(body) && typeof body.code === 'string' ? body.code : undefined;
}

export interface EngineReason {
  code: string;
  message?: string;
  source?: string;
}

/** The reasons (or cautions) listed under `key` of a stored engine result; entries without a code are left out. */
export function engineReasons(result: unknown, key: 'reasons' | 'cautions'): EngineReason[] {
  const list = isObject(result) ? result[key] : undefined;
  if (!Array.isArray(list)) return [];
  return list.flatMap((r: unknown) =>
    isObject(r) && typeof r.code === 'string'
      ? [{ code: r.code, message: typeof r.message === 'string' ? r.message : undefined, source: typeof r.source === 'string' ? r.source : undefined }]
      : [],
  );
}
