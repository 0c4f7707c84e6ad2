/** The store's logging hook (EmbeddedStoreOptions.log); a no-op when none is given. */
export type StoreLog = (level: 'info' | 'warn' | 'error', msg: string, fields?: object) => void;

export const SILENT_LOG: StoreLog = () => undefined;
