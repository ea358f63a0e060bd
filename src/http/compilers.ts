import AjvCompiler from '@fastify/ajv-compiler';
import SerializerSelector from '@fastify/fast-json-stringify-compiler';

type BuildValidator = AjvCompiler.BuildCompilerFromPool;
type Validate = ReturnType<ReturnType<BuildValidator>>;
type BuildSerializer = SerializerSelector.SerializerFactory;

const validatorsFromPool = AjvCompiler();
const serializerFactory = SerializerSelector();

/** Compiles a route's schema on first use; Fastify reads `errors` off the function given, so copy them. */
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
