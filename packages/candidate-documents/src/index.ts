export * from './candidate-document';
export * from './public-id';
export * from './search-fields';
