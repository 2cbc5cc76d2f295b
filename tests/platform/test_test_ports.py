"""The ports the tests' own servers take: below the ephemeral range, where no outgoing connection is given
one between the choice and the server's bind."""

import socket

from tests.common.ports import ephemeral_start, free_port


def test_a_chosen_port_lies_below_the_ephemeral_range_and_binds():
    port = free_port()
    assert 10_000 <= port < ephemeral_start()
    with socket.socket() as server:
        server.bind(("127.0.0.1", port))


def test_a_port_is_never_given_twice():
    assert len({free_port() for _ in range(200)}) == 200

