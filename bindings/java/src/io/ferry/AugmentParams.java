package io.ferry;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * What one sample drew (ferry_augment_params): from {@link Augment#drawn(int)}, {@link Batch#drawn()} or
 * {@link Augment#draw}. Factors of operations that are off read 1 (hue 0). A value: equal when every field is.
 */
public final class AugmentParams {
  /** ferry_augment_params' size, then the offsets of its fields, as the loaded library lays them out. */
  private static final int[] LAYOUT = new int[11];

  static {
    for (int i = 0; i < LAYOUT.length; ++i) LAYOUT[i] = (int) Ferry.augmentParamsLayout(i);
  }

  /** Bytes per entry of the native array. */
  static final int SIZE = LAYOUT[0];

  private final long[] crop = new long[4];
  private final int flip;
  private final boolean grayscale;
  private final float brightness, contrast, saturation, hue;
  private final JitterOp[] jitterOrder = new JitterOp[4];
  private final boolean erased;
  private final long[] erase = new long[4];

  /** Entry i of the native array `bytes` views. */
  static AugmentParams read(ByteBuffer bytes, int i) {
    return new AugmentParams(bytes.duplicate().order(ByteOrder.nativeOrder()), i * SIZE);
  }

  private AugmentParams(ByteBuffer b, int at) {
    for (int k = 0; k < 4; ++k) {
      crop[k] = b.getLong(at + LAYOUT[1] + 8 * k);
      jitterOrder[k] = JitterOp.swigToEnum(b.getInt(at + LAYOUT[8] + 4 * k));
      erase[k] = b.getLong(at + LAYOUT[10] + 8 * k);
    }
    flip = b.getInt(at + LAYOUT[2]);
    grayscale = b.getInt(at + LAYOUT[3]) != 0;
    brightness = b.getFloat(at + LAYOUT[4]);
    contrast = b.getFloat(at + LAYOUT[5]);
    saturation = b.getFloat(at + LAYOUT[6]);
    hue = b.getFloat(at + LAYOUT[7]);
    erased = b.getInt(at + LAYOUT[9]) != 0;
  }

  /** The window x, y, w, h in source pixels (CROP_RANDOM and CROP_CENTER may reach outside: 0 there). */
  public long[] crop() { return crop.clone(); }

  /** The {@link Mirror} bits drawn (the transform's own mirror is applied on top). */
  public int flip() { return flip; }

  public boolean flipX() { return (flip & Mirror.X.swigValue()) != 0; }

  public boolean flipY() { return (flip & Mirror.Y.swigValue()) != 0; }

  public boolean grayscale() { return grayscale; }

  public float brightness() { return brightness; }

  public float contrast() { return contrast; }

  public float saturation() { return saturation; }

  /** In turns. */
  public float hue() { return hue; }

  /** The order the four colour operations ran (those that are off last). */
  public JitterOp[] jitterOrder() { return jitterOrder.clone(); }

  /** Whether {@link #erase()} was applied. */
  public boolean erased() { return erased; }

  /** The erased box x, y, w, h in output pixels (0s where none). */
  public long[] erase() { return erase.clone(); }

  @Override
  public boolean equals(Object other) {
    if (!(other instanceof AugmentParams)) return false;
    AugmentParams o = (AugmentParams) other;
    return Arrays.equals(crop, o.crop) && flip == o.flip && grayscale == o.grayscale
        && Float.compare(brightness, o.brightness) == 0 && Float.compare(contrast, o.contrast) == 0
        && Float.compare(saturation, o.saturation) == 0 && Float.compare(hue, o.hue) == 0
        && Arrays.equals(jitterOrder, o.jitterOrder) && erased == o.erased && Arrays.equals(erase, o.erase);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(new Object[] {Arrays.hashCode(crop), flip, grayscale, brightness, contrast, saturation, hue,
                                         Arrays.hashCode(jitterOrder), erased, Arrays.hashCode(erase)});
  }

  @Override
  public String toString() {
    return "AugmentParams(crop " + Arrays.toString(crop) + ", flip " + flip + ", grayscale " + grayscale
        + ", brightness " + brightness + ", contrast " + contrast + ", saturation " + saturation + ", hue " + hue
        + ", order " + Arrays.toString(jitterOrder) + (erased ? ", erase " + Arrays.toString(erase) : "") + ")";
  }
}
