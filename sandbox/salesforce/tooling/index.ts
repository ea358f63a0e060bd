export { ToolingEntities } from './entities.ts';
export { fieldPermissionsValidator, registerFieldPermissionRules } from './fls.ts';
export { FIELD_TYPES, fieldSpecFromMetadata, type ToolingError } from './metadata.ts';
export { registerToolingRoutes, type ToolingContext } from './routes.ts';
