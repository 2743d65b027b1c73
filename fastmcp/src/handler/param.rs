//! What a handler's parameter is, decided by its type through these traits, never by the name the type is
//! written with: the macros emit `<T as ToolParam>::…` (or `PromptParam`, `ResourceParam`) for every
//! parameter, so `use fastmcp::Context as Ctx; … ctx: Ctx` is the request's context, and a type of the
//! user's own that is also named `Context` is an argument like any other.
//!
//! A parameter plays one of three [`Role`]s: an argument, sent by the client every round (for a tool,
//! `T: Deserialize + JsonSchema`, one property of the input; for a prompt argument or a template variable,
//! `T: FromStr`); supplied by the runtime (`Context`, `&Context`), fresh every round and never carried in
//! request state; or, for a tool, the whole arguments object (`Args<T>`).
//!
//! Each trait has a blanket impl for arguments next to impls for the runtime's own types: they can't
//! overlap, since `Deserialize`, `JsonSchema` and `FromStr` could only be implemented for those types here.

use super::{Args, PromptGet, ResourceRead, ToolCall};
use crate::context::Context;
use crate::error::Error;
use crate::protocol::{JsonObject, PromptArgument};
use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::de::{self, DeserializeOwned, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::fmt::{self, Display};
use std::str::FromStr;

/// What a parameter is to its handler.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// Sent by the client with every round.
    Argument,
    /// Supplied by the runtime with every round; part of no schema.
    Supplied,
    /// A tool's whole arguments object (`Args<T>`).
    Arguments,
}

impl Role {
    /// Whether the client sends it ([`Role::Argument`]): only those parameters appear in a schema or a
    /// prompt's `arguments`.
    pub const fn is_argument(self) -> bool {
        matches!(self, Role::Argument)
    }

    /// Whether parameter `i` of a tool stands where an `Args<T>` forbids it: an argument next to one (the
    /// arguments object is `T`), or a second one. For the macro's compile-time check.
    pub const fn beside_arguments(roles: &[Role], i: usize) -> bool {
        let mut j = 0;
        while j < roles.len() {
            if j != i && matches!(roles[j], Role::Arguments) {
                match roles[i] {
                    Role::Argument => return true,
                    Role::Arguments if j < i => return true,
                    _ => {}
                }
            }
            j += 1;
        }
        false
    }
}

/// A parameter of a `#[tool]`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` can't be a parameter of a #[tool]",
    label = "not an argument, and not supplied by the runtime",
    note = "an argument's type implements `Deserialize` and `JsonSchema` (derive both) and owns its value (`String`, not `&str`); the runtime supplies `Context`, `&Context` and `Args<T>`"
)]
pub trait ToolParam<'r>: Sized {
    /// Whether the parameter is an argument, supplied by the runtime, or the whole arguments object.
    const ROLE: Role;
    /// The parameter's field in the arguments struct the macro derives: the argument itself, or a marker
    /// that reads from nothing and that [`input_schema`] leaves out.
    type Field: DeserializeOwned + JsonSchema;
    /// The handler's value, from its field and the call.
    fn take(field: Self::Field, call: &'r ToolCall) -> Self;
}

impl<'r, T: DeserializeOwned + JsonSchema> ToolParam<'r> for T {
    const ROLE: Role = Role::Argument;
    type Field = T;
    fn take(field: T, _: &'r ToolCall) -> T {
        field
    }
}

impl<'r> ToolParam<'r> for Context {
    const ROLE: Role = Role::Supplied;
    type Field = Supplied;
    fn take(_: Supplied, call: &'r ToolCall) -> Self {
        call.context().clone()
    }
}

impl<'r> ToolParam<'r> for &'r Context {
    const ROLE: Role = Role::Supplied;
    type Field = Supplied;
    fn take(_: Supplied, call: &'r ToolCall) -> Self {
        call.context()
    }
}

impl<'r, T: DeserializeOwned + JsonSchema> ToolParam<'r> for Args<T> {
    const ROLE: Role = Role::Arguments;
    type Field = ArgumentsField<T>;
    fn take(field: ArgumentsField<T>, _: &'r ToolCall) -> Self {
        Args(field.0)
    }
}

/// A parameter of a `#[prompt]` (a `name: Option<T>` argument is read by the macro, as optional).
#[diagnostic::on_unimplemented(
    message = "`{Self}` can't be a parameter of a #[prompt]",
    label = "not an argument, and not supplied by the runtime",
    note = "a prompt's arguments are strings: an argument's type implements `FromStr`; the runtime supplies `Context` and `&Context`"
)]
pub trait PromptParam<'r>: Sized {
    /// Whether the parameter is an argument of the prompt or supplied by the runtime.
    const ROLE: Role;
    /// The handler's value for the parameter `name`: an argument parsed from the get (missing or unparsable
    /// is `-32602`), or what the runtime supplies.
    fn take(get: &'r PromptGet, name: &str) -> Result<Self, Error>;
}

impl<'r, T: FromStr> PromptParam<'r> for T
where
    T::Err: Display,
{
    const ROLE: Role = Role::Argument;
    fn take(get: &'r PromptGet, name: &str) -> Result<Self, Error> {
        get.required(name)
    }
}

/// A parameter of a `#[resource]` that is not a variable of its URI template (the macro reads those).
#[diagnostic::on_unimplemented(
    message = "`{Self}` can't be a parameter of a #[resource]",
    label = "not a template variable's type, and not supplied by the runtime",
    note = "a template variable's type implements `FromStr`; the runtime supplies `Context` and `&Context`"
)]
pub trait ResourceParam<'r>: Sized {
    /// Whether the parameter is a template variable or supplied by the runtime.
    const ROLE: Role;
    /// The handler's value for the parameter `name`: a template variable parsed from the read (one that
    /// does not parse is "resource not found"), or what the runtime supplies.
    fn take(read: &'r ResourceRead, name: &str) -> Result<Self, Error>;
}

impl<'r, T: FromStr> ResourceParam<'r> for T {
    const ROLE: Role = Role::Argument;
    fn take(read: &'r ResourceRead, name: &str) -> Result<Self, Error> {
        read.variable(name)
    }
}

/// The runtime's own parameter types: the request's context, owned or borrowed, for prompts and resources.
macro_rules! supplied {
    ($($ty:ty => $take:expr;)*) => {$(
        impl<'r> PromptParam<'r> for $ty {
            const ROLE: Role = Role::Supplied;
            fn take(get: &'r PromptGet, _: &str) -> Result<Self, Error> {
                Ok($take(get.context()))
            }
        }

        impl<'r> ResourceParam<'r> for $ty {
            const ROLE: Role = Role::Supplied;
            fn take(read: &'r ResourceRead, _: &str) -> Result<Self, Error> {
                Ok($take(read.context()))
            }
        }
    )*};
}

supplied! {
    Context => Context::clone;
    &'r Context => std::convert::identity;
}

/// What a tool's parameters make of it: their roles, the input schema, and the handler's values from a
/// call. The macro builds one in a `const fn` generic over the parameters' types and bounded by `ToolParam`
/// on each, the one place it names those bounds: a type that is not a parameter is reported there, once.
pub struct ToolInput<'r, V, const N: usize> {
    /// Each parameter's role, in declaration order.
    pub roles: [Role; N],
    /// Builds the tool's input schema (see [`input_schema`](Self::input_schema)).
    pub schema: fn() -> JsonObject,
    /// Reads the arguments (with [`parse_arguments`], given the roles) and takes each parameter's value.
    pub values: fn(&'r ToolCall, &[Role]) -> Result<V, serde_json::Error>,
}

impl<'r, V, const N: usize> ToolInput<'r, V, N> {
    /// The tool's `inputSchema`: the arguments' properties without the supplied parameters, or `T`'s own
    /// schema for an `Args<T>`.
    pub fn input_schema(&self) -> JsonObject {
        (self.schema)()
    }

    /// The handler's parameter values for this call; an `Err` when the arguments don't deserialize.
    pub fn values(&self, call: &'r ToolCall) -> Result<V, serde_json::Error> {
        (self.values)(call, &self.roles)
    }
}

/// A prompt's `arguments`: the entries of its parameters that are arguments.
pub fn prompt_arguments<const N: usize>(parameters: [(Role, PromptArgument); N]) -> Vec<PromptArgument> {
    parameters.into_iter().filter(|(role, _)| role.is_argument()).map(|(_, argument)| argument).collect()
}

/// How a `mut` parameter that a later round reads gets there: an argument travels in the request state
/// like any carried local (it may have changed); what the runtime supplies is supplied again, fresh.
#[diagnostic::on_unimplemented(
    message = "`{Self}` lives across `.ask()`, so it must implement `Serialize` and `Deserialize`",
    label = "this `mut` parameter is carried to the next round in the request state",
    note = "derive `serde::Serialize` and `serde::Deserialize` for it, or drop the `mut` (the client sends the parameter again every round)"
)]
pub trait Resumed: Sized {
    /// What travels: the value itself, or nothing.
    type Carried: Serialize + DeserializeOwned;
    /// What of the parameter goes into the request state when the round suspends.
    fn travels(&self) -> &Self::Carried;
    /// The parameter in the resumed round, from what travelled and what this round was given.
    fn resume(carried: Self::Carried, fresh: Self) -> Self;
}

impl<T: Serialize + DeserializeOwned> Resumed for T {
    type Carried = T;
    fn travels(&self) -> &T {
        self
    }
    fn resume(carried: T, _: T) -> T {
        carried
    }
}

impl Resumed for Context {
    type Carried = ();
    fn travels(&self) -> &() {
        &()
    }
    fn resume(_: (), fresh: Self) -> Self {
        fresh
    }
}

impl Resumed for &Context {
    type Carried = ();
    fn travels(&self) -> &() {
        &()
    }
    fn resume(_: (), fresh: Self) -> Self {
        fresh
    }
}

/// The borrows a parameter may be: only of what the runtime supplies. An argument is parsed from the
/// request, so it owns its value. (Checked apart from `ToolParam`, whose bound on a borrow fails only at
/// borrow checking, in words about lifetimes.)
#[diagnostic::on_unimplemented(
    message = "`{Self}` can't be a parameter: arguments are parsed from the request and own their value",
    label = "a borrow",
    note = "take an owned value (`String` for `&str`, `Vec<T>` for `&[T]`); only what the runtime supplies can be borrowed, like `&Context`"
)]
pub trait Borrowable {}

impl Borrowable for &Context {}

/// The compile-time check of a parameter of type `&T`, spanned on it.
pub fn borrowed_param<T: Borrowable>() {}

/// A sub-flow's parameter: it travels in the sub-flow's state, since the client doesn't send it again.
#[diagnostic::on_unimplemented(
    message = "`{Self}` can't be a parameter of a sub-flow: its arguments travel in the request state, so each must implement `Serialize` and `Deserialize`",
    label = "carried in the request state",
    note = "a sub-flow has no request context: take what you need from the context in the handler and pass it in"
)]
pub trait SubFlowParam: Serialize + DeserializeOwned {}

impl<T: Serialize + DeserializeOwned> SubFlowParam for T {}

/// The compile-time check of a sub-flow's parameter, spanned on its type.
pub fn subflow_param<T: SubFlowParam>() {}

/// The `ToolParam::Field` of what the runtime supplies: present in no schema, it reads from a missing
/// field, and ignores a value the client sends under its name (as it would any unknown key).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Supplied;

/// The key that marks a supplied parameter's property, which [`input_schema`] removes.
const SUPPLIED: &str = "x-fastmcp-supplied";
/// The key under which an `Args<T>`'s property holds `T`'s input schema, which [`input_schema`] returns.
const ARGUMENTS: &str = "x-fastmcp-arguments";

impl<'de> Deserialize<'de> for Supplied {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Anything;
        impl<'de> Visitor<'de> for Anything {
            type Value = Supplied;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("anything")
            }
            fn visit_none<E>(self) -> Result<Supplied, E> {
                Ok(Supplied)
            }
            fn visit_unit<E>(self) -> Result<Supplied, E> {
                Ok(Supplied)
            }
            fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Supplied, D::Error> {
                IgnoredAny::deserialize(d).map(|_| Supplied)
            }
        }
        // A missing field reads as `none`.
        deserializer.deserialize_option(Anything)
    }
}

impl JsonSchema for Supplied {
    fn inline_schema() -> bool {
        true
    }
    fn schema_name() -> Cow<'static, str> {
        "Supplied".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        let mut marker = JsonObject::new();
        marker.insert(SUPPLIED.into(), Value::Bool(true));
        marker.into()
    }
}

/// The `ToolParam::Field` of an `Args<T>`: `T`, read from the whole arguments object by
/// [`parse_arguments`], with `T`'s input schema as the tool's.
pub struct ArgumentsField<T>(T);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for ArgumentsField<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        T::deserialize(deserializer).map(ArgumentsField)
    }
}

impl<T: JsonSchema> JsonSchema for ArgumentsField<T> {
    fn inline_schema() -> bool {
        true
    }
    fn schema_name() -> Cow<'static, str> {
        T::schema_name()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        let mut holder = JsonObject::new();
        holder.insert(ARGUMENTS.into(), Value::Object(crate::schema::input_schema::<T>()));
        holder.into()
    }
}

/// A tool's `inputSchema`, from the arguments struct the macro derives: without the properties of supplied
/// parameters, or `T`'s when a parameter is `Args<T>`.
pub fn input_schema<S: JsonSchema>() -> JsonObject {
    let mut schema = crate::schema::input_schema::<S>();
    let Some(Value::Object(properties)) = schema.get_mut("properties") else { return schema };
    if let Some(Value::Object(whole)) =
        properties.values_mut().find_map(|p| p.as_object_mut().and_then(|p| p.remove(ARGUMENTS)))
    {
        return whole;
    }
    let supplied: Vec<String> = properties
        .iter()
        .filter(|(_, p)| p.as_object().is_some_and(|p| p.contains_key(SUPPLIED)))
        .map(|(name, _)| name.clone())
        .collect();
    if supplied.is_empty() {
        return schema;
    }
    for name in &supplied {
        properties.shift_remove(name);
    }
    if properties.is_empty() {
        // As for a struct without fields: `crate::schema::input_schema` adds the empty object last.
        schema.shift_remove("properties");
        schema.insert("properties".into(), Value::Object(JsonObject::new()));
    }
    if let Some(Value::Array(required)) = schema.get_mut("required") {
        required.retain(|r| r.as_str().is_none_or(|r| !supplied.iter().any(|s| s == r)));
        if required.is_empty() {
            schema.shift_remove("required");
        }
    }
    schema
}

/// Reads a tool's arguments into the struct the macro derives (`roles`: its parameters', in order). With
/// an `Args<T>` the whole object is that parameter's: the struct reads from a map with one entry whose value
/// is the arguments themselves, so `T` reads the request's bytes in one pass, and its errors read as `T`'s.
pub fn parse_arguments<S: DeserializeOwned>(call: &ToolCall, roles: &[Role]) -> Result<S, serde_json::Error> {
    let Some(field) = roles.iter().position(|r| *r == Role::Arguments) else { return call.parse_arguments() };
    let raw = match call.arguments().map(RawValue::get) {
        None | Some("null") => "{}",
        Some(raw) => raw,
    };
    let mut json = serde_json::Deserializer::from_str(raw);
    let parsed = S::deserialize(WholeArguments { field, json: &mut json })?;
    json.end()?;
    Ok(parsed)
}

/// A deserializer of the arguments struct whose field number `field` reads the whole of `json`.
struct WholeArguments<'a, 'de> {
    field: usize,
    json: &'a mut serde_json::Deserializer<serde_json::de::StrRead<'de>>,
}

impl<'de> Deserializer<'de> for WholeArguments<'_, 'de> {
    type Error = serde_json::Error;

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        let key = fields.get(self.field).copied();
        visitor.visit_map(OneEntry { key, json: self.json })
    }

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Self::Error> {
        Err(de::Error::custom("the arguments of a tool with `Args<T>` are read into the macro's struct"))
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf option unit
        unit_struct newtype_struct seq tuple tuple_struct map enum identifier ignored_any
    }
}

struct OneEntry<'a, 'de> {
    /// Taken when read.
    key: Option<&'static str>,
    json: &'a mut serde_json::Deserializer<serde_json::de::StrRead<'de>>,
}

impl<'de> MapAccess<'de> for OneEntry<'_, 'de> {
    type Error = serde_json::Error;

    fn next_key_seed<K: de::DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, Self::Error> {
        match self.key.take() {
            Some(key) => seed.deserialize(de::value::BorrowedStrDeserializer::new(key)).map(Some),
            None => Ok(None),
        }
    }

    fn next_value_seed<V: de::DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Self::Error> {
        seed.deserialize(&mut *self.json)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[derive(Deserialize, JsonSchema)]
    #[allow(dead_code)]
    struct Query {
        /// Text to look for.
        text: String,
        limit: Option<u32>,
    }

    // What the macro derives for `(name: String, ctx: Context, times: Option<u32>)`, and what it derived
    // before parameters were classified by type (no field for the context).
    #[derive(Deserialize, JsonSchema)]
    #[allow(dead_code)]
    struct WithContext {
        /// Who.
        name: <String as ToolParam<'static>>::Field,
        /// The request's context.
        ctx: <Context as ToolParam<'static>>::Field,
        times: <Option<u32> as ToolParam<'static>>::Field,
    }

    #[derive(Deserialize, JsonSchema)]
    #[allow(dead_code)]
    struct Plain {
        /// Who.
        name: String,
        times: Option<u32>,
    }

    #[derive(Deserialize, JsonSchema)]
    #[allow(dead_code)]
    struct OnlySupplied {
        ctx: <&'static Context as ToolParam<'static>>::Field,
    }

    #[derive(Deserialize, JsonSchema)]
    #[allow(dead_code)]
    struct Empty {}

    #[derive(Deserialize, JsonSchema)]
    #[allow(dead_code)]
    struct WithArgs {
        query: <Args<Query> as ToolParam<'static>>::Field,
        ctx: <Context as ToolParam<'static>>::Field,
    }

    fn text(schema: JsonObject) -> String {
        serde_json::to_string(&schema).expect("serializes")
    }

    #[test]
    fn supplied_parameters_leave_the_schema_as_it_was() {
        assert_eq!(text(input_schema::<WithContext>()), text(crate::schema::input_schema::<Plain>()));
        assert_eq!(text(input_schema::<OnlySupplied>()), text(crate::schema::input_schema::<Empty>()));
    }

    #[test]
    fn args_make_the_schema_theirs() {
        assert_eq!(text(input_schema::<WithArgs>()), text(crate::schema::input_schema::<Query>()));
    }

    #[test]
    fn roles_next_to_args() {
        use Role::{Argument as A, Arguments as W, Supplied as S};
        assert!(!Role::beside_arguments(&[A, S, A], 0));
        assert!(!Role::beside_arguments(&[W, S], 0) && !Role::beside_arguments(&[W, S], 1));
        assert!(Role::beside_arguments(&[W, A], 1) && Role::beside_arguments(&[A, W], 0));
        assert!(!Role::beside_arguments(&[W, W], 0), "the first one stands");
        assert!(Role::beside_arguments(&[W, W], 1));
    }

    #[test]
    fn supplied_fields_read_from_nothing_and_ignore_a_value() {
        let parsed: WithContext = serde_json::from_value(json!({ "name": "a", "ctx": [1, 2] })).expect("parses");
        assert_eq!(parsed.ctx, Supplied);
        assert!(serde_json::from_value::<WithContext>(json!({ "ctx": null })).is_err(), "`name` is required");
    }

    fn context() -> Context {
        Context::new(crate::context::Scope {
            request_id: crate::protocol::RequestId::Number(1),
            protocol_version: crate::protocol::ProtocolVersion::V2025_06_18,
            client_info: None,
            client_capabilities: Default::default(),
        })
    }

    fn call(arguments: &str) -> ToolCall {
        ToolCall::new(Some(RawValue::from_string(arguments.into()).expect("json")), context())
    }

    #[test]
    fn args_read_the_whole_object_once() {
        let roles = [Role::Arguments, Role::Supplied];
        let parsed: WithArgs = parse_arguments(&call(r#"{"text":"x","limit":3}"#), &roles).expect("parses");
        assert_eq!((parsed.query.0.text.as_str(), parsed.query.0.limit), ("x", Some(3)));
        let plain = serde_json::from_str::<Query>(r#"{"text":7}"#).err().map(|e| e.to_string());
        let args = parse_arguments::<WithArgs>(&call(r#"{"text":7}"#), &roles).err().map(|e| e.to_string());
        assert_eq!(args, plain, "the same error, at the same place");
        assert!(parse_arguments::<WithArgs>(&call(r#"{"text":"x"} "#), &roles).is_ok());
        let absent = ToolCall::new(None, context());
        assert!(parse_arguments::<WithArgs>(&absent, &roles).is_err(), "`text` is required");
    }
}
