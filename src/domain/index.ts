export * from './connection.ts';
export * from './operations.ts';
