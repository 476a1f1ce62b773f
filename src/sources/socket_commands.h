/*
 * The listener of net=host:port with format=b: an agent thread ("HPROF listener
 * thread", kept out of the profile) that reads commands from the socket the profile
 * goes to (see socket_protocol.h) and answers each with the records it names, written
 * whole and flushed.
 *
 * Bad input never stops the program: a command with an unknown tag, a wrong length or
 * a bad body is dropped (the first one is reported); a length no command can have
 * means the stream is out of step, so the listener stops reading (reported too) while
 * the profile keeps being sent. A peer that closes the connection ends the listener.
 */
#ifndef HPROF_SOCKET_COMMANDS_H
#define HPROF_SOCKET_COMMANDS_H

#include <jni.h>

struct agent;

/* Starts the listener (VMInit). 0 on success. */
int socket_commands_start(struct agent *a, JNIEnv *jni);
/* Stops it and waits (bounded) until it has left the socket (VMDeath). Safe to call
 * from the listener itself (EXIT THE VM ends up here). */
void socket_commands_stop(struct agent *a);

#endif
