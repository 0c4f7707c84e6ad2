export * from './candidate-document';
export * from './public-id';
