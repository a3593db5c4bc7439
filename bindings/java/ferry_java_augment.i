/* ferry's Java binding: random augmentation (ferry/augment.h, included by
 * ../ferry.i). Included by ferry_java.i.
 *
 * - Augment: ferry_augment, its constructor ferry_augment_init, fluent setters
 *   named as the C fields (setSeed, setScale(lo, hi), setEraseValue(...)),
 *   getters, and the parameters each sample drew (requestDrawn, drawn).
 * - Transform.setAugment: the transform points at the Augment's native struct
 *   and holds the Augment, so the collector cannot free it under the transform.
 * - AugmentParams (src/io/ferry/AugmentParams.java): one sample's drawn
 *   parameters, read from the native array laid out as ferry_augment_params.
 * - Augment.draw: ferry_augment_draw. Context.prefetch with an Augment steps it
 *   per batch (Prefetcher.java). */

/* Java's Augment: the scalar fields' SWIG accessors are private (...Native),
 * the public setters return the Augment. */
%define FERRY_JAVA_AUGMENT_FIELD(FIELD, NATIVE)
%rename(NATIVE) ferry_augment::FIELD;
%javamethodmodifiers ferry_augment::FIELD "private";
%enddef
FERRY_JAVA_AUGMENT_FIELD(seed, seedNative)
FERRY_JAVA_AUGMENT_FIELD(step, stepNative)
FERRY_JAVA_AUGMENT_FIELD(first_index, firstIndexNative)
FERRY_JAVA_AUGMENT_FIELD(crop, cropNative)
FERRY_JAVA_AUGMENT_FIELD(padding, paddingNative)
FERRY_JAVA_AUGMENT_FIELD(flip_x_probability, flipXProbabilityNative)
FERRY_JAVA_AUGMENT_FIELD(flip_y_probability, flipYProbabilityNative)
FERRY_JAVA_AUGMENT_FIELD(grayscale_probability, grayscaleProbabilityNative)
FERRY_JAVA_AUGMENT_FIELD(erase_probability, eraseProbabilityNative)
FERRY_JAVA_AUGMENT_FIELD(erase_fill, eraseFillNative)
%javamethodmodifiers ferry_augment::set_values "private";
%javamethodmodifiers ferry_augment::value_at "private";
%javamethodmodifiers ferry_augment::reserve_drawn "private";
%javamethodmodifiers ferry_augment::drawn_address "private";
%javamethodmodifiers ferry_transform::set_augment_address "private";
%javamethodmodifiers augment_params_layout "";
%javamethodmodifiers augment_draw "";

/* The native part, shared with C# (../ferry_augment_native.i): Augment,
 * AugmentCrop, EraseFill, JitterOp, the hidden fields (the arrays through
 * set_values / value_at; what was drawn through AugmentParams) and the methods
 * named above. */
%include "ferry_augment_native.i"

%typemap(javainterfaces) ferry_augment "AutoCloseable"
%typemap(javacode) ferry_augment %{
  /** Frees the native description (and its drawn array). Idempotent. A Transform that still holds it then throws
   * FerryException.InvalidHandle at submit. */
  @Override
  public void close() { delete(); }

  /** The stream of draws: with step and the sample's index, all each sample draws. */
  public Augment setSeed(long seed) { setSeedNative(seed); return this; }
  public long getSeed() { return getSeedNative(); }
  /** One per batch (a loader advances it; Context.prefetch with an Augment does). */
  public Augment setStep(long step) { setStepNative(step); return this; }
  public long getStep() { return getStepNative(); }
  /** Sample i draws as index firstIndex + i (a shard's offset), 0 to 2^32 - 1. */
  public Augment setFirstIndex(long firstIndex) { setFirstIndexNative(firstIndex); return this; }
  public long getFirstIndex() { return getFirstIndexNative(); }
  /** Where each sample's window comes from; a crop needs the transform's resize (STRETCH). */
  public Augment setCrop(AugmentCrop crop) { setCropNative(crop); return this; }
  /** The crop by name: see {@link AugmentCrop#parse}. */
  public Augment setCrop(String crop) { return setCrop(AugmentCrop.parse(crop)); }
  public AugmentCrop getCrop() { return getCropNative(); }
  /** CROP_RANDOM_RESIZED: the area fraction, 0 &lt; lo &lt;= hi &lt;= 1 (default 0.08, 1). */
  public Augment setScale(float lo, float hi) { return range("scale", lo, hi); }
  public float[] getScale() { return values("scale", 2); }
  /** CROP_RANDOM_RESIZED: the aspect w/h, 0 &lt; lo &lt;= hi (default 3/4, 4/3). */
  public Augment setRatio(float lo, float hi) { return range("ratio", lo, hi); }
  public float[] getRatio() { return values("ratio", 2); }
  /** CROP_RANDOM: 0-pixels added on each side (CIFAR: 4). */
  public Augment setPadding(long padding) { setPaddingNative(padding); return this; }
  public long getPadding() { return getPaddingNative(); }
  /** Horizontal flip, 0 to 1. */
  public Augment setFlipXProbability(float p) { setFlipXProbabilityNative(p); return this; }
  public float getFlipXProbability() { return getFlipXProbabilityNative(); }
  /** Vertical flip, 0 to 1. */
  public Augment setFlipYProbability(float p) { setFlipYProbabilityNative(p); return this; }
  public float getFlipYProbability() { return getFlipYProbabilityNative(); }
  /** ColorJitter's brightness factor range, lo &gt;= 0; 1, 1 (default) is off. torchvision's 0.4 is 0.6, 1.4. */
  public Augment setBrightness(float lo, float hi) { return range("brightness", lo, hi); }
  public float[] getBrightness() { return values("brightness", 2); }
  public Augment setContrast(float lo, float hi) { return range("contrast", lo, hi); }
  public float[] getContrast() { return values("contrast", 2); }
  public Augment setSaturation(float lo, float hi) { return range("saturation", lo, hi); }
  public float[] getSaturation() { return values("saturation", 2); }
  /** The hue shift in turns, -0.5 &lt;= lo &lt;= hi &lt;= 0.5; 0, 0 (default) is off. */
  public Augment setHue(float lo, float hi) { return range("hue", lo, hi); }
  public float[] getHue() { return values("hue", 2); }
  public Augment setGrayscaleProbability(float p) { setGrayscaleProbabilityNative(p); return this; }
  public float getGrayscaleProbability() { return getGrayscaleProbabilityNative(); }
  /** RandomErasing (after normalization), 0 to 1. */
  public Augment setEraseProbability(float p) { setEraseProbabilityNative(p); return this; }
  public float getEraseProbability() { return getEraseProbabilityNative(); }
  /** The erased box's area fraction (default 0.02, 0.33). */
  public Augment setEraseScale(float lo, float hi) { return range("erase_scale", lo, hi); }
  public float[] getEraseScale() { return values("erase_scale", 2); }
  /** The erased box's aspect h/w (default 0.3, 3.3). */
  public Augment setEraseRatio(float lo, float hi) { return range("erase_ratio", lo, hi); }
  public float[] getEraseRatio() { return values("erase_ratio", 2); }
  public Augment setEraseFill(EraseFill fill) { setEraseFillNative(fill); return this; }
  /** The fill by name, "value" or "random". */
  public Augment setEraseFill(String fill) { return setEraseFill(EraseFill.parse(fill)); }
  public EraseFill getEraseFill() { return getEraseFillNative(); }
  /** FILL VALUE's value per output channel, in output units: one value for every channel, or 2 to 4. */
  public Augment setEraseValue(float... values) { setValues("erase_value", values); return this; }
  public float[] getEraseValue() { return values("erase_value", 4); }

  private Augment range(String field, float lo, float hi) {
    setValues(field, new float[] {lo, hi});
    return this;
  }

  private float[] values(String field, int count) {
    float[] v = new float[count];
    for (int i = 0; i < count; ++i) v[i] = valueAt(field, i);
    return v;
  }

  private boolean recording;
  private long capacity, pending, drawnCount;

  /**
   * Records what each sample draws: every submit, convert or output description with a Transform that holds this
   * Augment writes one {@link AugmentParams} per sample before it returns ({@link #drawn(int)}, and a Batch's
   * {@link Batch#drawn()}). n: the room to make now (it grows for a larger batch); 0 stops recording. An Augment that
   * records serves one call at a time (one thread); one that does not may serve many.
   */
  public Augment requestDrawn(long n) {
    if (n < 0) throw new FerryException.InvalidArgument("n is " + n + ": the samples to make room for, 0 or more");
    reserveDrawn(n);
    recording = n > 0;
    capacity = n;
    drawnCount = 0;
    return this;
  }

  /** The samples of the last call that recorded (0 before one, or after one that failed). */
  public long drawnCount() { return drawnCount; }

  /** What sample i of the last call drew. */
  public AugmentParams drawn(int i) {
    if (i < 0 || i >= drawnCount)
      throw new FerryException.OutOfRange("index is " + i + ": the last call drew " + drawnCount + " samples"
          + (recording ? "" : " (call requestDrawn first)"));
    return AugmentParams.read(Ferry.asByteBuffer(drawnAddress(), capacity * AugmentParams.SIZE), i);
  }

  /** What each sample of the last call drew, drawnCount() entries. */
  public AugmentParams[] drawn() {
    AugmentParams[] all = new AugmentParams[(int) drawnCount];
    if (drawnCount == 0) return all;
    java.nio.ByteBuffer bytes = Ferry.asByteBuffer(drawnAddress(), capacity * AugmentParams.SIZE);
    for (int i = 0; i < all.length; ++i) all[i] = AugmentParams.read(bytes, i);
    return all;
  }

  /** Before a call on n samples: room for them where recording. */
  void prepare(long n) {
    drawnCount = 0;
    pending = n;
    if (recording && n > capacity) {
      reserveDrawn(n);
      capacity = n;
    }
  }

  /** After the call succeeded: what it drew, or null where not recording. */
  AugmentParams[] called() {
    if (!recording) return null;
    drawnCount = Math.max(0, Math.min(pending, capacity));
    return drawn();
  }

  /**
   * What n samples of heights h[i] and widths w[i] draw for an output of outW x outH, as a conversion with this
   * augmentation at its step would (ferry_augment_draw): for labels that must follow the image before it converts.
   * Bad fields throw ferry's FerryException naming them, as at submit. Thread-safe.
   */
  public static AugmentParams[] draw(Augment augment, long[] h, long[] w, long outW, long outH) {
    if (h == null || w == null) throw new FerryException.InvalidArgument("h and w are null: one of each per sample");
    if (h.length != w.length)
      throw new FerryException.InvalidArgument("h has " + h.length + " entries but w has " + w.length
          + ": one of each per sample");
    long[] sizes = new long[2 * h.length];
    System.arraycopy(h, 0, sizes, 0, h.length);
    System.arraycopy(w, 0, sizes, h.length, w.length);
    java.nio.ByteBuffer out = java.nio.ByteBuffer.allocateDirect(Math.max(1, h.length * AugmentParams.SIZE));
    Ferry.augmentDraw(augment, sizes, outW, outH, Ferry.directBufferAddress(out), out.capacity());
    AugmentParams[] all = new AugmentParams[h.length];
    for (int i = 0; i < all.length; ++i) all[i] = AugmentParams.read(out, i);
    return all;
  }

  @Override
  public String toString() {
    if (swigCPtr == 0) return "Augment(closed)";
    return "Augment(seed " + getSeed() + ", step " + getStep() + ", firstIndex " + getFirstIndex() + ", crop "
        + getCrop() + ", flip " + getFlipXProbability() + "/" + getFlipYProbability() + ", grayscale "
        + getGrayscaleProbability() + ", erase " + getEraseProbability() + ")";
  }
%}

/* Transform: the Augment it holds, checked and prepared before each call
 * (checkLengths), its draws taken after it (augmentCalled). */
%extend ferry_transform {
  %proxycode %{
  private Augment augment;

  /**
   * Draws and applies {@code augment} per sample in the conversion (ferry_transform.augment); null: none. The
   * Transform holds the Augment (it stays alive as long as the Transform) and reads its fields at each call, so
   * changing the Augment (its step) changes the next call.
   */
  public Transform setAugment(Augment augment) {
    if (augment != null && Augment.getCPtr(augment) == 0)
      throw new FerryException.InvalidHandle("augment is closed: a live Augment is required");
    attachAugment(augment);
    return this;
  }

  public Augment getAugment() { return augment; }

  void attachAugment(Augment augment) {
    setAugmentAddress(augment != null && Augment.getCPtr(augment) != 0 ? augment : null);
    this.augment = augment;
  }

  void prepareAugment(Source source) {
    if (augment == null) return;
    if (Augment.getCPtr(augment) == 0)
      throw new FerryException.InvalidHandle("transform.augment is closed: set a live Augment, or null");
    augment.prepare(source == null ? 0 : source.getN());
  }

  void augmentCalled(Batch batch) {
    if (augment == null) return;
    AugmentParams[] drawn = augment.called();
    if (batch != null) batch.drawn = drawn;
  }
  %}
}

%extend ferry_context_s {
  %proxycode %{
  /**
   * {@link #prefetch(Iterable, Transform, SubmitOptions, int)} with {@code augment} drawn per sample: each batch draws
   * at the Augment's step when it is submitted, and the step then advances by one (so the next epoch draws anew);
   * {@link Prefetcher#close()} sets it back by the batches submitted ahead and never returned. The transform (null:
   * the defaults) holds the Augment only while each batch is submitted; what a batch drew is its
   * {@link Batch#drawn()} where the Augment records ({@link Augment#requestDrawn}).
   */
  public Prefetcher prefetch(Iterable<? extends Source> sources, Transform transform, Augment augment,
                             SubmitOptions options, int depth) {
    if (sources == null) throw new FerryException.InvalidArgument("sources is null: an Iterable of Source is required");
    return new Prefetcher(this, sources.iterator(), transform, augment, options, depth);
  }

  /** {@link #prefetch(Iterable, Transform, Augment, SubmitOptions, int)} two batches ahead, no options. */
  public Prefetcher prefetch(Iterable<? extends Source> sources, Transform transform, Augment augment) {
    return prefetch(sources, transform, augment, null, 2);
  }
  %}
}

%extend ferry_batch_s {
  %proxycode %{
  AugmentParams[] drawn;

  /**
   * What each sample drew, where the Transform's Augment recorded ({@link Augment#requestDrawn}): written before
   * submit returned. Null otherwise.
   */
  public AugmentParams[] drawn() { return drawn == null ? null : drawn.clone(); }
  %}
}

/* ---- the enums from their names ---- */
%typemap(javacode) enum ferry_augment_crop %{
  /** The crop named "none", "random_resized", "random" or "center" (any case); else FerryException.InvalidArgument. */
  public static AugmentCrop parse(String name) {
    switch (name == null ? "" : name.toLowerCase(java.util.Locale.ROOT)) {
      case "none": return CROP_NONE;
      case "random_resized": return CROP_RANDOM_RESIZED;
      case "random": return CROP_RANDOM;
      case "center": return CROP_CENTER;
      default:
        throw new FerryException.InvalidArgument("augment.crop is " + (name == null ? "null" : "\"" + name + "\"")
            + ": use none, random_resized, random or center");
    }
  }
%}
%typemap(javacode) enum ferry_erase_fill %{
  /** The fill named "value" or "random" (any case); else FerryException.InvalidArgument. */
  public static EraseFill parse(String name) {
    switch (name == null ? "" : name.toLowerCase(java.util.Locale.ROOT)) {
      case "value": return VALUE;
      case "random": return RANDOM;
      default:
        throw new FerryException.InvalidArgument("augment.erase_fill is "
            + (name == null ? "null" : "\"" + name + "\"") + ": use value or random");
    }
  }
%}
