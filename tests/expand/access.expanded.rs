//! Access: `scopes` and `auth` become the handler's `access()`; the check fn is bound to a `Check` on its
//! own path, so a fn of another signature is an error there. A resource with scopes alone has no check.
use fastmcp::auth::{AccessToken, Denied};
use fastmcp::prelude::*;
fn on_call(token: &AccessToken) -> Result<(), Denied> {
    if token.subject.is_some() { Ok(()) } else { Err(Denied::new("no subject")) }
}
#[allow(non_camel_case_types)]
#[derive(
    ::core::fmt::Debug,
    ::core::clone::Clone,
    ::core::marker::Copy,
    ::core::default::Default
)]
struct deploy;
impl deploy {
    #[allow(clippy::unused_async)]
    async fn invoke(service: String) -> String {
        service
    }
}
#[doc(hidden)]
#[allow(dead_code, non_upper_case_globals)]
const __fastmcp_tool_name_deploy: () = ();
const _: () = {
    #[derive(
        ::fastmcp::__private::serde::Deserialize,
        ::fastmcp::__private::schemars::JsonSchema
    )]
    #[serde(crate = "::fastmcp::__private::serde")]
    #[schemars(crate = "::fastmcp::__private::schemars")]
    struct __FastmcpArgs<__F0> {
        service: __F0,
    }
    const fn __fastmcp_input<'r, __T0: ::fastmcp::__private::ToolParam<'r>>() -> ::fastmcp::__private::ToolInput<
        'r,
        (__T0,),
        1usize,
    > {
        ::fastmcp::__private::ToolInput {
            roles: [<__T0 as ::fastmcp::__private::ToolParam<'r>>::ROLE],
            schema: ::fastmcp::__private::input_schema::<
                __FastmcpArgs<<__T0 as ::fastmcp::__private::ToolParam<'r>>::Field>,
            >,
            values: |__fastmcp_call, __fastmcp_roles| {
                let __FastmcpArgs { service: __fastmcp_arg_0 } = ::fastmcp::__private::parse_arguments::<
                    __FastmcpArgs<<__T0 as ::fastmcp::__private::ToolParam<'r>>::Field>,
                >(__fastmcp_call, __fastmcp_roles)?;
                ::core::result::Result::Ok((
                    <__T0 as ::fastmcp::__private::ToolParam<
                        'r,
                    >>::take(__fastmcp_arg_0, __fastmcp_call),
                ))
            },
        }
    }
    const __FASTMCP_ROLES: [::fastmcp::__private::Role; 1usize] = __fastmcp_input::<
        '_,
        String,
    >()
        .roles;
    impl ::fastmcp::__private::ToolHandler for deploy {
        fn definition(&self) -> ::fastmcp::__private::Tool {
            ::fastmcp::__private::tool_definition(
                "deploy",
                ::core::option::Option::None,
                ::core::option::Option::None,
                __fastmcp_input::<'_, String>().input_schema(),
                <String as ::fastmcp::__private::IntoToolResult>::output_schema(),
                ::core::option::Option::None,
            )
        }
        fn call(
            &self,
            __fastmcp_call: ::fastmcp::__private::ToolCall,
        ) -> ::fastmcp::__private::BoxFuture<
            ::fastmcp::__private::HandlerResult<::fastmcp::__private::CallToolResult>,
        > {
            ::std::boxed::Box::pin(async move {
                let (__fastmcp_arg_0,) = match __fastmcp_input::<'_, String>()
                    .values(&__fastmcp_call)
                {
                    ::core::result::Result::Ok(__fastmcp_ok) => __fastmcp_ok,
                    ::core::result::Result::Err(__fastmcp_err) => {
                        return ::fastmcp::__private::invalid_arguments(
                            "deploy",
                            __fastmcp_err,
                        );
                    }
                };
                let __fastmcp_out = deploy::invoke(__fastmcp_arg_0).await;
                <String as ::fastmcp::__private::IntoToolResult>::into_tool_step(
                    __fastmcp_out,
                )
            })
        }
        fn access(&self) -> ::fastmcp::__private::Access {
            ::fastmcp::__private::Access::new(
                &["deploy:write", "deploy:read"],
                {
                    let __fastmcp_check: ::fastmcp::__private::Check = on_call;
                    ::core::option::Option::Some(__fastmcp_check)
                },
            )
        }
    }
};
#[allow(non_camel_case_types)]
#[derive(
    ::core::fmt::Debug,
    ::core::clone::Clone,
    ::core::marker::Copy,
    ::core::default::Default
)]
struct logs;
impl logs {
    #[allow(clippy::unused_async)]
    async fn invoke(service: String) -> String {
        service
    }
}
const _: () = {
    impl ::fastmcp::__private::ResourceHandler for logs {
        fn definition(&self) -> ::fastmcp::__private::ResourceDefinition {
            ::fastmcp::__private::resource_template(
                "logs://{service}",
                "logs",
                ::core::option::Option::None,
                ::core::option::Option::None,
                ::core::option::Option::None,
            )
        }
        fn read(
            &self,
            __fastmcp_read: ::fastmcp::__private::ResourceRead,
        ) -> ::fastmcp::__private::BoxFuture<
            ::fastmcp::__private::HandlerResult<::fastmcp::__private::ReadResourceResult>,
        > {
            ::std::boxed::Box::pin(async move {
                let __fastmcp_arg_0 = __fastmcp_read.variable::<String>("service")?;
                let __fastmcp_out = logs::invoke(__fastmcp_arg_0).await;
                ::fastmcp::__private::resource_step::<
                    String,
                >(__fastmcp_out, __fastmcp_read.uri(), ::core::option::Option::None)
            })
        }
        fn access(&self) -> ::fastmcp::__private::Access {
            ::fastmcp::__private::Access::new(
                &["logs:read"],
                ::core::option::Option::None,
            )
        }
    }
};
