"""The people directory finds other users by first name, full name or email, never the asker."""

from __future__ import annotations

from typing import Any

import pytest

from skills.people import Person, people_search


@pytest.fixture
def sam(django_user_model: Any) -> Any:
    return django_user_model.objects.create_user(
        "sam", "sam@example.com", first_name="Sam", last_name="Ortiz"
    )


@pytest.fixture
def ann(django_user_model: Any) -> Any:
    return django_user_model.objects.create_user("ann", "ann@example.com", first_name="Ann", last_name="Lee")


@pytest.mark.django_db
@pytest.mark.parametrize("query", ["Ann", "ann", "Ann Lee", "  ann   LEE ", "ANN@example.com"])
def test_finds_a_person_by_first_name_full_name_or_email(sam: Any, ann: Any, query: str) -> None:
    assert people_search(user=sam, query=query) == [
        Person(email="ann@example.com", name="Ann Lee", user_id=ann.pk)
    ]


@pytest.mark.django_db
def test_the_asking_user_is_never_a_match(sam: Any, django_user_model: Any) -> None:
    other_sam = django_user_model.objects.create_user("sam2", "sam.b@example.com", first_name="Sam")

    assert [p.user_id for p in people_search(user=sam, query="Sam")] == [other_sam.pk]


@pytest.mark.django_db
def test_inactive_users_and_partial_names_do_not_match(sam: Any, ann: Any) -> None:
    ann.is_active = False
    ann.save()

    assert people_search(user=sam, query="Ann") == []
    assert people_search(user=sam, query="An") == []


@pytest.mark.django_db
def test_an_empty_query_finds_nobody(sam: Any, ann: Any) -> None:
    assert people_search(user=sam, query="   ") == []


@pytest.mark.django_db
def test_several_people_with_one_first_name_are_all_returned(sam: Any, django_user_model: Any) -> None:
    django_user_model.objects.create_user("ann1", "ann.b@example.com", first_name="Ann", last_name="Bo")
    django_user_model.objects.create_user("ann2", "ann.a@example.com", first_name="Ann", last_name="Ada")

    assert [p.name for p in people_search(user=sam, query="ann")] == ["Ann Ada", "Ann Bo"]
