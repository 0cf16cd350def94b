"""Tokens of a LangGraph Server that serves ponder: one user per token, or no one gets in
(the caller is told to ask the operator; the names are logged for the operator only)."""

from __future__ import annotations

import logging

import pytest
from langgraph_sdk import Auth

from ponder.interfaces.langgraph_auth import authenticate


async def test_a_token_two_users_share_lets_no_one_in_and_the_log_names_them(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("PONDER_SERVER_TOKENS", "alice=one,bob=one,carol=two")
    for token in ("one", "two"):
        with pytest.raises(Auth.exceptions.HTTPException) as refused:
            await authenticate({b"authorization": f"Bearer {token}".encode()})
        assert refused.value.status_code == 401
        assert "operator" in str(refused.value.detail) and "alice" not in str(refused.value.detail)
    assert any(
        "'alice' and 'bob'" in r.getMessage() for r in caplog.records if r.levelno == logging.ERROR
    )


async def test_each_user_with_a_token_of_their_own_is_who_their_token_names(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("PONDER_SERVER_TOKENS", "alice=one,bob=two")
    assert await authenticate({"authorization": "Bearer two"}) == {"identity": "bob"}
