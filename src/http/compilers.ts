import AjvCompiler from '@fastify/ajv-compiler';
import SerializerSelector from '@fastify/fast-json-stringify-compiler';

type BuildValidator = AjvCompiler.BuildCompilerFromPool;
type Validate = ReturnType<ReturnType<BuildValidator>>;
type BuildSerializer = SerializerSelector.SerializerFactory;

const validatorsFromPool = AjvCompiler();
const serializerFactory = SerializerSelector();

/**
 * Fastify's validator compiler, compiling a route's schema on its first request, not at start-up.
 * Fastify reads `errors` from the function it was given, so they are copied.
 */
export const buildValidator: BuildValidator = (externalSchemas, options) => {
  const compile = validatorsFromPool(externalSchemas, options);
  return (route) => {
    let validate: Validate | undefined;
    const lazy = ((data: unknown) => {
      validate ??= compile(route);
      const result = validate(data);
      lazy.errors = validate.errors;
      return result;
    }) as Validate;
    return lazy;
  };
};

/** Fastify's serializer compiler (fast-json-stringify), compiling a response schema on its first answer. */
export const buildSerializer: BuildSerializer = (externalSchemas, options) => {
  const compile = serializerFactory(externalSchemas, options);
  return (route) => {
    let serialize: ((doc: unknown) => string) | undefined;
    return (doc: unknown) => {
      serialize ??= compile(route);
      return serialize(doc);
    };
  };
};
