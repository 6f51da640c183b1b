package io.github.distlock.sample.shop;

/**
 * What paying an order came to.
 *
 * @param order the order after the attempt
 * @param charged whether this attempt paid it; false when it had been paid before
 */
public record Payment(Order order, boolean charged) {

}
