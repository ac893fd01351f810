"""The chat page and its HTTP fallback: who may see what, and what the JSON endpoints answer."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from assistant.models import Conversation, Message, ReplyKind
from assistant.services import conversation_create

pytestmark = pytest.mark.django_db

REPLY_KINDS = {kind.value for kind in ReplyKind}


@pytest.fixture
def user() -> Any:
    return get_user_model().objects.create_user(username="ada", password="correct horse battery")


@pytest.fixture
def other_user() -> Any:
    return get_user_model().objects.create_user(username="grace", password="another long passphrase")


@pytest.fixture
def conversation(user: Any) -> Conversation:
    return conversation_create(user=user)


@pytest.fixture
def ada(client: Client, user: Any) -> Client:
    client.force_login(user)
    return client


def send_json(client: Client, conversation: Conversation, body: Any) -> Any:
    return client.post(
        reverse("message_send", kwargs={"conversation_id": conversation.pk}),
        data=json.dumps(body),
        content_type="application/json",
        headers={"accept": "application/json"},
    )


# -- sign-in -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "method"),
    [
        ("chat", "get"),
        ("conversation", "get"),
        ("messages", "get"),
        ("message_send", "post"),
        ("conversation_new", "post"),
    ],
)
def test_every_page_sends_anonymous_visitors_to_login(
    client: Client, conversation: Conversation, name: str, method: str
) -> None:
    kwargs = (
        {"conversation_id": conversation.pk} if name in ("conversation", "messages", "message_send") else {}
    )
    url = reverse(name, kwargs=kwargs)
    response = getattr(client, method)(url)
    assert response.status_code == 302
    assert response["Location"] == f"{reverse('login')}?next={url}"


def test_login_page_renders_the_form(client: Client) -> None:
    response = client.get(reverse("login"))
    assert response.status_code == 200
    assert b'name="username"' in response.content
    assert b'name="password"' in response.content


def test_login_form_signs_in_and_lands_on_the_chat(client: Client, user: Any) -> None:
    response = client.post(reverse("login"), {"username": "ada", "password": "correct horse battery"})
    assert response.status_code == 302
    assert response["Location"] == reverse("chat")


def test_login_with_a_wrong_password_says_so(client: Client, user: Any) -> None:
    response = client.post(reverse("login"), {"username": "ada", "password": "wrong"})
    assert response.status_code == 200
    assert b'role="alert"' in response.content
    assert b"correct username and password" in response.content


def test_logout_is_a_post(ada: Client) -> None:
    response = ada.post(reverse("logout"))
    assert response.status_code == 302
    assert ada.get(reverse("chat")).status_code == 302  # back to the login page


def test_healthz_answers_without_login(client: Client) -> None:
    response = client.get(reverse("healthz"))
    assert response.status_code == 200
    assert response.content == b"ok"


# -- the chat page -------------------------------------------------------------------------------


def test_chat_opens_the_newest_conversation(ada: Client, user: Any) -> None:
    conversation_create(user=user, title="older")
    newest = conversation_create(user=user, title="newer")
    response = ada.get(reverse("chat"))
    assert response.status_code == 302
    assert response["Location"] == reverse("conversation", kwargs={"conversation_id": newest.pk})


def test_chat_starts_a_first_conversation(ada: Client, user: Any) -> None:
    response = ada.get(reverse("chat"))
    created = Conversation.objects.get(user=user)
    assert response["Location"] == reverse("conversation", kwargs={"conversation_id": created.pk})


def test_new_conversation_is_created_and_opened(ada: Client, user: Any) -> None:
    response = ada.post(reverse("conversation_new"))
    created = Conversation.objects.get(user=user)
    assert response.status_code == 302
    assert response["Location"] == reverse("conversation", kwargs={"conversation_id": created.pk})


def test_conversation_page_embeds_history_and_lists_conversations(
    ada: Client, user: Any, conversation: Conversation
) -> None:
    conversation.title = "Plans"
    conversation.save()
    Message.objects.create(
        conversation=conversation,
        role=Message.Role.ASSISTANT,
        kind=ReplyKind.ANSWER,
        text="<b>Free</b> all day",
    )
    response = ada.get(reverse("conversation", kwargs={"conversation_id": conversation.pk}))
    assert response.status_code == 200
    body = response.content.decode()
    assert 'id="chat-history"' in body
    assert "\\u003Cb\\u003EFree\\u003C/b\\u003E all day" in body  # escaped inside the JSON, never markup
    assert "Plans" in body
    assert 'aria-live="polite"' in body
    assert "assistant/chat.js" in body


# -- another user's conversation ----------------------------------------------------------------


def test_another_users_conversation_page_is_404(ada: Client, other_user: Any) -> None:
    theirs = conversation_create(user=other_user)
    assert ada.get(reverse("conversation", kwargs={"conversation_id": theirs.pk})).status_code == 404


def test_another_users_messages_are_404(ada: Client, other_user: Any) -> None:
    theirs = conversation_create(user=other_user)
    assert ada.get(reverse("messages", kwargs={"conversation_id": theirs.pk})).status_code == 404


def test_sending_into_another_users_conversation_is_404(ada: Client, other_user: Any) -> None:
    theirs = conversation_create(user=other_user)
    response = send_json(ada, theirs, {"text": "hello"})
    assert response.status_code == 404
    assert not Message.objects.filter(conversation=theirs).exists()


# -- the HTTP fallback ---------------------------------------------------------------------------


def test_send_returns_the_users_message_and_the_reply(ada: Client, conversation: Conversation) -> None:
    response = send_json(ada, conversation, {"text": "What's my week look like?"})
    assert response.status_code == 200
    messages = response.json()["messages"]
    assert messages[0]["role"] == "user"
    assert messages[0]["text"] == "What's my week look like?"
    reply = messages[-1]
    assert reply["role"] == "assistant"
    assert reply["kind"] in REPLY_KINDS
    assert isinstance(reply["text"], str)
    assert reply["text"]


def test_send_accepts_a_form_post_and_redirects_back(ada: Client, conversation: Conversation) -> None:
    url = reverse("message_send", kwargs={"conversation_id": conversation.pk})
    response = ada.post(url, {"text": "hello"})
    assert response.status_code == 302
    assert response["Location"] == reverse("conversation", kwargs={"conversation_id": conversation.pk})
    assert conversation.messages.filter(role=Message.Role.USER, text="hello").exists()


def test_send_form_post_asking_for_json_gets_json(ada: Client, conversation: Conversation) -> None:
    url = reverse("message_send", kwargs={"conversation_id": conversation.pk})
    response = ada.post(url, {"text": "hello"}, headers={"accept": "application/json"})
    assert response.status_code == 200
    assert response.json()["messages"][0]["text"] == "hello"


@pytest.mark.parametrize(
    ("body", "error"),
    [
        ({}, "required"),
        ({"text": ""}, "required"),
        ({"text": "   \n "}, "required"),
        ({"text": "x" * 2001}, "at most 2000 characters"),
        ({"text": 42}, "must be a string"),
        (["text"], "JSON object"),
        ({"text": "Undo that", "undo": "last-one"}, "undo"),
    ],
)
def test_send_rejects_bad_input_with_a_clear_400(
    ada: Client, conversation: Conversation, body: Any, error: str
) -> None:
    response = send_json(ada, conversation, body)
    assert response.status_code == 400
    assert error in response.json()["error"]
    assert not conversation.messages.exists()


def test_send_rejects_a_body_that_is_not_json(ada: Client, conversation: Conversation) -> None:
    response = ada.post(
        reverse("message_send", kwargs={"conversation_id": conversation.pk}),
        data="{not json",
        content_type="application/json",
    )
    assert response.status_code == 400
    assert response.json() == {"error": "The body is not valid JSON."}


def test_send_accepts_exactly_2000_characters(ada: Client, conversation: Conversation) -> None:
    response = send_json(ada, conversation, {"text": "x" * 2000})
    assert response.status_code == 200


def test_messages_lists_the_history_in_order(ada: Client, conversation: Conversation) -> None:
    first = Message.objects.create(conversation=conversation, role=Message.Role.USER, text="one")
    second = Message.objects.create(
        conversation=conversation, role=Message.Role.ASSISTANT, kind=ReplyKind.ANSWER, text="two"
    )
    response = ada.get(reverse("messages", kwargs={"conversation_id": conversation.pk}))
    assert response.status_code == 200
    assert [m["id"] for m in response.json()["messages"]] == [first.pk, second.pk]
    assert response.json()["messages"][1]["kind"] == "answer"


def test_messages_after_a_cursor_lists_only_newer_ones(ada: Client, conversation: Conversation) -> None:
    first = Message.objects.create(conversation=conversation, role=Message.Role.USER, text="one")
    second = Message.objects.create(
        conversation=conversation, role=Message.Role.ASSISTANT, kind=ReplyKind.ANSWER, text="two"
    )
    url = reverse("messages", kwargs={"conversation_id": conversation.pk})
    response = ada.get(url, {"after": first.pk})
    assert [m["id"] for m in response.json()["messages"]] == [second.pk]


def test_messages_rejects_a_bad_cursor(ada: Client, conversation: Conversation) -> None:
    url = reverse("messages", kwargs={"conversation_id": conversation.pk})
    response = ada.get(url, {"after": "soon"})
    assert response.status_code == 400
    assert "after" in response.json()["error"]


# -- the admin -----------------------------------------------------------------------------------


def test_admin_shows_conversations_with_their_messages_read_only(
    client: Client, conversation: Conversation
) -> None:
    admin = get_user_model().objects.create_superuser(username="root", password="an admin passphrase")
    Message.objects.create(conversation=conversation, role=Message.Role.USER, text="hello admin")
    client.force_login(admin)
    assert client.get(reverse("admin:assistant_conversation_changelist")).status_code == 200
    assert client.get(reverse("admin:assistant_message_changelist")).status_code == 200
    page = client.get(reverse("admin:assistant_conversation_change", args=[conversation.pk]))
    assert page.status_code == 200
    assert b"hello admin" in page.content
    assert b'name="title"' not in page.content  # nothing editable
