package io.github.distlock.torture.check;

/**
 * One write the fenced resource received, in the order the fence server ran it.
 *
 * @param resource the resource (the lock key)
 * @param token the writer's token
 * @param writer {@code <worker>/<call>}
 * @param phase {@code enter} or {@code exit}
 * @param accepted whether the fence accepted it
 */
public record FenceWrite(String resource, long token, String writer, String phase, boolean accepted) {

}
