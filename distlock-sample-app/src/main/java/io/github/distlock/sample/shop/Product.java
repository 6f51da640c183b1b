package io.github.distlock.sample.shop;

/**
 * A product on sale.
 *
 * @param sku the stock-keeping unit, the product's id
 * @param name what buyers see
 * @param stock items left
 * @param lastToken the fencing token of the last stock write, which every later write must exceed
 */
public record Product(String sku, String name, int stock, long lastToken) {

}
