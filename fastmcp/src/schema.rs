//! JSON Schemas for tool inputs and outputs, generated once per tool with schemars (draft 2020-12).

use crate::protocol::JsonObject;
use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde_json::Value;

/// Marks an output schema whose non-object value travels wrapped as `{"result": value}`, since the legacy
/// wire requires an object at the root of `outputSchema` and `structuredContent`.
pub const WRAP_RESULT_KEY: &str = "x-fastmcp-wrap-result";

fn schema_object<T: JsonSchema>() -> JsonObject {
    let schema = SchemaSettings::draft2020_12().into_generator().into_root_schema_for::<T>();
    match schema.to_value() {
        Value::Object(map) => map,
        // `true` / `false` schemas: any value / no value.
        _ => JsonObject::new(),
    }
}

/// The `inputSchema` for an arguments type: an object schema without the generated root title.
pub fn input_schema<T: JsonSchema>() -> JsonObject {
    let mut schema = schema_object::<T>();
    schema.remove("title");
    schema.insert("type".into(), "object".into());
    schema.entry("properties").or_insert_with(|| Value::Object(JsonObject::new()));
    schema
}

/// The `outputSchema` for a structured result type. A non-object root is wrapped in `{"result": …}`.
pub fn output_schema<T: JsonSchema>() -> JsonObject {
    let mut schema = schema_object::<T>();
    schema.remove("title");
    if is_object_schema(&schema) {
        return schema;
    }
    let dialect = schema.remove("$schema");
    let defs = schema.remove("$defs");
    let mut wrapped = JsonObject::new();
    if let Some(dialect) = dialect {
        wrapped.insert("$schema".into(), dialect);
    }
    wrapped.insert("type".into(), "object".into());
    wrapped.insert("properties".into(), serde_json::json!({ "result": schema }));
    wrapped.insert("required".into(), serde_json::json!(["result"]));
    if let Some(defs) = defs {
        wrapped.insert("$defs".into(), defs);
    }
    wrapped.insert(WRAP_RESULT_KEY.into(), Value::Bool(true));
    wrapped
}

pub(crate) fn is_object_schema(schema: &JsonObject) -> bool {
    schema.get("type").and_then(Value::as_str) == Some("object")
}
