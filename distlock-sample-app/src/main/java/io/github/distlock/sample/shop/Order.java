package io.github.distlock.sample.shop;

/**
 * One bought item.
 *
 * @param id the order's id
 * @param sku what was bought
 * @param status whether it is paid
 * @param token the fencing token of the stock lock under which it was bought
 */
public record Order(long id, String sku, OrderStatus status, long token) {

}
