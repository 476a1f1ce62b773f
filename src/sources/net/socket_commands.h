/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The listener of net=host:port with format=b: an agent thread ("HPROF listener
 * thread", kept out of the profile) that reads commands from the socket the profile
 * goes to (see socket_protocol.h) and hands each good one to the host to carry out.
 *
 * Bad input never stops the program: a command with an unknown tag, a wrong length or
 * a bad body is dropped (the first one is reported); a length no command can have
 * means the stream is out of step, so the listener stops reading (reported too) while
 * the profile keeps being sent. A peer that closes the connection ends the listener.
 */
#ifndef HPROF_SOCKET_COMMANDS_H
#define HPROF_SOCKET_COMMANDS_H

#include <jni.h>

/* The life cycle: socket_commands_source (sources/source.h). Its stop hook waits
 * (bounded) until the listener has left the socket, and may run on the listener itself
 * (EXIT THE VM ends up there). */
#include "sources/source.h"

#endif
