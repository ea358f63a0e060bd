export * from './connect.ts';
export * from './connection.ts';
export * from './operations.ts';
