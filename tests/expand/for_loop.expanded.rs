//! An ask in a `for` loop: the iterator is collected into a queue the suspension carries with the answers so
//! far; the resumed round finishes the interrupted iteration, then enters the loop again.
use fastmcp::prelude::*;
#[allow(non_camel_case_types)]
#[derive(
    ::core::fmt::Debug,
    ::core::clone::Clone,
    ::core::marker::Copy,
    ::core::default::Default
)]
struct survey;
#[doc(hidden)]
#[allow(dead_code, non_upper_case_globals)]
const __fastmcp_tool_name_survey: () = ();
const _: () = {
    #[derive(
        ::fastmcp::__private::serde::Deserialize,
        ::fastmcp::__private::schemars::JsonSchema
    )]
    #[serde(crate = "::fastmcp::__private::serde")]
    #[schemars(crate = "::fastmcp::__private::schemars")]
    struct __FastmcpArgs<__F0> {
        questions: __F0,
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
                let __FastmcpArgs { questions: __fastmcp_arg_0 } = ::fastmcp::__private::parse_arguments::<
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
        Vec<String>,
    >()
        .roles;
    impl survey {
        #[doc(hidden)]
        async fn __fastmcp_machine(
            questions: Vec<String>,
            __fastmcp_slot: &::fastmcp::__private::Slot,
            __fastmcp_resume: ::core::option::Option<::fastmcp::__private::Resume>,
        ) -> Result<String> {
            let mut __fastmcp_a1 = ::core::option::Option::None;
            let __fastmcp_carry_answers = ::fastmcp::__private::carried();
            let __fastmcp_carry_iter0 = ::fastmcp::__private::carried();
            let __fastmcp_carry_question = ::fastmcp::__private::carried();
            let (__fastmcp_step, __fastmcp_locals, mut __fastmcp_responses) = ::fastmcp::__private::resume_parts(
                __fastmcp_resume,
            );
            match __fastmcp_step {
                0 => {
                    let mut answers = Vec::new();
                    #[allow(clippy::never_loop)]
                    {
                        let mut __fastmcp_iter0: ::std::collections::VecDeque<_> = ::core::iter::IntoIterator::into_iter(
                                questions,
                            )
                            .collect();
                        while let ::core::option::Option::Some(question) = __fastmcp_iter0
                            .pop_front()
                        {
                            {
                                let __fastmcp_ask = Reply::elicit(question.clone());
                                __fastmcp_a1 = ::fastmcp::__private::witness(
                                    &__fastmcp_ask,
                                );
                                match ::fastmcp::__private::suspend(
                                        __fastmcp_slot,
                                        1,
                                        "ask1",
                                        __fastmcp_ask,
                                        [
                                            __fastmcp_carry_answers.carry(&mut answers),
                                            __fastmcp_carry_iter0.carry(&mut __fastmcp_iter0),
                                            __fastmcp_carry_question.carry(&question),
                                        ],
                                    )
                                    .await
                                {}
                            }
                        }
                    }
                    Ok(answers.join("; "))
                }
                1 => {
                    let mut __fastmcp_carried = ::fastmcp::__private::restore(
                            __fastmcp_slot,
                            &__fastmcp_locals,
                        )
                        .await;
                    #[allow(unused_mut)]
                    let mut answers = __fastmcp_carried
                        .take(__fastmcp_slot, &__fastmcp_carry_answers)
                        .await;
                    #[allow(unused_mut)]
                    let mut __fastmcp_iter0 = __fastmcp_carried
                        .take(__fastmcp_slot, &__fastmcp_carry_iter0)
                        .await;
                    let question = __fastmcp_carried
                        .take(__fastmcp_slot, &__fastmcp_carry_question)
                        .await;
                    {
                        let mut __fastmcp_resuming = true;
                        loop {
                            if ::core::mem::replace(&mut __fastmcp_resuming, false) {
                                let reply = ::fastmcp::__private::answer(
                                        __fastmcp_slot,
                                        &__fastmcp_a1,
                                        "ask1",
                                        &mut __fastmcp_responses,
                                    )
                                    .await?;
                                let answer = reply
                                    .accepted()
                                    .map(|r| r.answer)
                                    .unwrap_or_default();
                                answers.push(format!("{question}={answer}"));
                            } else {
                                if let ::core::option::Option::Some(question) = __fastmcp_iter0
                                    .pop_front()
                                {
                                    {
                                        let __fastmcp_ask = Reply::elicit(question.clone());
                                        __fastmcp_a1 = ::fastmcp::__private::witness(
                                            &__fastmcp_ask,
                                        );
                                        match ::fastmcp::__private::suspend(
                                                __fastmcp_slot,
                                                1,
                                                "ask1",
                                                __fastmcp_ask,
                                                [
                                                    __fastmcp_carry_answers.carry(&mut answers),
                                                    __fastmcp_carry_iter0.carry(&mut __fastmcp_iter0),
                                                    __fastmcp_carry_question.carry(&question),
                                                ],
                                            )
                                            .await
                                        {}
                                    }
                                } else {
                                    break;
                                }
                            }
                        }
                    }
                    Ok(answers.join("; "))
                }
                _ => match __fastmcp_slot.unknown_step(__fastmcp_step).await {}
            }
        }
    }
    impl ::fastmcp::__private::ToolHandler for survey {
        fn definition(&self) -> ::fastmcp::__private::Tool {
            ::fastmcp::__private::tool_definition(
                "survey",
                ::core::option::Option::None,
                ::core::option::Option::None,
                __fastmcp_input::<'_, Vec<String>>().input_schema(),
                <Result<
                    String,
                > as ::fastmcp::__private::IntoToolResult>::output_schema(),
                ::core::option::Option::None,
            )
        }
        fn call(
            &self,
            mut __fastmcp_call: ::fastmcp::__private::ToolCall,
        ) -> ::fastmcp::__private::BoxFuture<
            ::fastmcp::__private::HandlerResult<::fastmcp::__private::CallToolResult>,
        > {
            ::std::boxed::Box::pin(async move {
                let mut __fastmcp_resume = __fastmcp_call.take_resume();
                loop {
                    let (__fastmcp_arg_0,) = match __fastmcp_input::<'_, Vec<String>>()
                        .values(&__fastmcp_call)
                    {
                        ::core::result::Result::Ok(__fastmcp_ok) => __fastmcp_ok,
                        ::core::result::Result::Err(__fastmcp_err) => {
                            return ::fastmcp::__private::invalid_arguments(
                                "survey",
                                __fastmcp_err,
                            );
                        }
                    };
                    let __fastmcp_slot = ::fastmcp::__private::Slot::new();
                    let __fastmcp_body = survey::__fastmcp_machine(
                        __fastmcp_arg_0,
                        &__fastmcp_slot,
                        __fastmcp_resume,
                    );
                    match ::fastmcp::__private::drive(&__fastmcp_slot, __fastmcp_body)
                        .await?
                    {
                        ::fastmcp::__private::Pass::Complete(__fastmcp_out) => {
                            break ::core::result::Result::Ok(
                                ::fastmcp::__private::Step::Complete(
                                    <Result<
                                        String,
                                    > as ::fastmcp::__private::IntoToolResult>::into_tool_result(
                                        __fastmcp_out,
                                    ),
                                ),
                            );
                        }
                        ::fastmcp::__private::Pass::Suspend(__fastmcp_suspension) => {
                            break ::core::result::Result::Ok(
                                ::fastmcp::__private::Step::Suspend(__fastmcp_suspension),
                            );
                        }
                        ::fastmcp::__private::Pass::Again(__fastmcp_again) => {
                            __fastmcp_resume = ::core::option::Option::Some(
                                __fastmcp_again,
                            );
                        }
                    }
                }
            })
        }
        fn fingerprint(&self) -> u64 {
            0x55548068100459a5u64
        }
    }
};
