/* ferry bindings, Java: the Java side of Context, Batch, Source, Transform and
 * TensorInfo: submit overloads that keep a direct ByteBuffer source alive
 * until ferry no longer reads it (a global reference dropped by the batch's
 * completion callback, however the Batch is dropped), byte[] sources,
 * images of different sizes (Source.setImages: direct ByteBuffers held as
 * setBuffer's, byte[]s pinned during the call by ferry_java.i's natives),
 * Transform arrays checked as written, toString(). */

/* Samples of different sizes (ferry_source.sample_descs): Source.setImages below. */
%rename(setSampleDescsNative) ferry_source::set_sample_descs;
%javamethodmodifiers ferry_source::set_sample_descs "private";
%javamethodmodifiers ferry_source::clear_sample_descs "private";

/* A frame's planes: Source.setPlaneOffsets / setPlanePitches below (varargs, chained). */
%rename(setPlaneOffsetsNative) ferry_source::set_plane_offsets;
%javamethodmodifiers ferry_source::set_plane_offsets "private";
%rename(setPlanePitchesNative) ferry_source::set_plane_pitches;
%javamethodmodifiers ferry_source::set_plane_pitches "private";

%rename(submitNative) ferry_context_s::submit;
%javamethodmodifiers ferry_context_s::submit "private";
%javamethodmodifiers ferry_context_s::submit_holding "private";
%rename(submitBytesNative) ferry_context_s::submit_and_wait_source;
%javamethodmodifiers ferry_context_s::submit_and_wait_source "private";
%rename(convertNative) ferry_context_s::convert;
%javamethodmodifiers ferry_context_s::convert "private";
%rename(transformOutputInfoNative) transform_output_info;
%javamethodmodifiers transform_output_info "private";
%javamethodmodifiers ferry_batch_s::describe "private";
%javamethodmodifiers ferry_tensor_info::describe "private";
%javamethodmodifiers ferry_batch_s::retain_output_reference "";
%javamethodmodifiers ferry_tensor_info::describe_reference "";
%javamethodmodifiers tensor_release "";

/* Transform's array setters: the Java methods below remember each length. */
%ignore ferry_transform::set_mean;
%ignore ferry_transform::set_std;
%javamethodmodifiers ferry_transform::set_mean_values "private";
%javamethodmodifiers ferry_transform::set_std_values "private";
%javamethodmodifiers ferry_transform::check_value_lengths "private";
%rename(setChannelMapNative) ferry_transform::set_channel_map;
%javamethodmodifiers ferry_transform::set_channel_map "private";
%rename(setPerSampleMeanNative) ferry_transform::set_per_sample_mean;
%javamethodmodifiers ferry_transform::set_per_sample_mean "private";
%rename(setPerSampleStdNative) ferry_transform::set_per_sample_std;
%javamethodmodifiers ferry_transform::set_per_sample_std "private";
%rename(setPerSampleCropNative) ferry_transform::set_per_sample_crop;
%javamethodmodifiers ferry_transform::set_per_sample_crop "private";
%rename(setPerSampleMirrorNative) ferry_transform::set_per_sample_mirror;
%javamethodmodifiers ferry_transform::set_per_sample_mirror "private";
%rename(setLetterboxValueNative) ferry_transform::set_letterbox_value;
%javamethodmodifiers ferry_transform::set_letterbox_value "private";
%rename(setPerSampleWindowNative) ferry_transform::set_per_sample_window;
%javamethodmodifiers ferry_transform::set_per_sample_window "private";

%pragma(java) modulecode=%{
  /**
   * The packed output that source and transform give (ferry_transform_describe_output), with the
   * transform's mean/std lengths checked against the channels as at submit.
   */
  public static TensorInfo transformOutputInfo(Source source, Transform transform) {
    if (transform != null) transform.checkLengths(source);
    TensorInfo info = source != null && source.arrayImages() != null
        ? source.outputInfoImagesNative(source.arrayImages(), transform)
        : transformOutputInfoNative(source, transform);
    if (transform != null) transform.augmentCalled(null);
    return info;
  }
%}

%typemap(javainterfaces) ferry_context_s "AutoCloseable"
%typemap(javacode) ferry_context_s %{
  /**
   * Destroys the context: waits for its batches, frees all it owns but the outputs that a
   * {@link Tensor} still holds. Idempotent.
   */
  @Override
  public void close() { delete(); }

  /**
   * Submits a batch; returns at once. The source's memory (a direct ByteBuffer set with
   * {@link Source#setBuffer}, or addresses) is read asynchronously: keep it unchanged until
   * {@link Batch#sourceReusable()} or {@link Batch#waitSource()}. A direct ByteBuffer stays
   * reachable until ferry no longer reads it, even if the Batch is dropped without close().
   * transform, output and options may be null for the defaults. Throws
   * FerryException.InvalidArgument when the transform's mean or std has neither 1 value nor one
   * per output channel.
   */
  public Batch submit(Source source, Transform transform, Output output, SubmitOptions options) {
    if (transform != null) transform.checkLengths(source);
    Batch batch;
    if (source != null && source.arrayImages() != null) {
      // byte[] images (Source.setImages): pinned during the call, which waits for ferry to read them.
      batch = submitImagesNative(source, source.arrayImages(), transform, output, options);
    } else {
      // A direct ByteBuffer, or the Image[] whose direct ByteBuffers the images are, stays reachable.
      Object held = source == null ? null : (source.buffer != null ? source.buffer : source.images);
      batch = submitHolding(source, transform, output, options, Ferry.holdReference(held));
    }
    batch.keepAlive = new Object[] {this};
    if (transform != null) transform.augmentCalled(batch);
    return batch;
  }

  public Batch submit(Source source, Transform transform) { return submit(source, transform, null, null); }

  public Batch submit(Source source) { return submit(source, null, null, null); }

  /**
   * The sources' batches, {@code depth} submitted ahead of the one the iterator returns (see
   * {@link Prefetcher}); options (a hand-off stream, ...) and transform may be null. Close the
   * Prefetcher (try-with-resources) to leave nothing in flight when the loop ends early.
   */
  public Prefetcher prefetch(Iterable<? extends Source> sources, Transform transform, SubmitOptions options,
                             int depth) {
    if (sources == null) throw new FerryException.InvalidArgument("sources is null: an Iterable of Source is required");
    return new Prefetcher(this, sources.iterator(), transform, null, options, depth);
  }

  /** {@link #prefetch(Iterable, Transform, SubmitOptions, int)} two batches ahead, no options. */
  public Prefetcher prefetch(Iterable<? extends Source> sources, Transform transform) {
    return prefetch(sources, transform, null, 2);
  }

  /**
   * Submits a batch whose pixels are a Java byte[]: the array is pinned (or copied by the JVM)
   * only during this call, which therefore returns once ferry has read the source
   * (ferry_batch_wait_source). The conversion may still be running: wait on the batch.
   * The source describes the shape and strides; its data is ignored.
   */
  public Batch submit(Source source, byte[] data, Transform transform, Output output, SubmitOptions options) {
    if (transform != null) transform.checkLengths(source);
    Batch batch = submitBytesNative(source, data, transform, output, options);
    batch.keepAlive = new Object[] {this};
    if (transform != null) transform.augmentCalled(batch);
    return batch;
  }

  public Batch submit(Source source, byte[] data, Transform transform) {
    return submit(source, data, transform, null, null);
  }

  /** ferry_transform_apply: data already in the context's memory; stream 0 is the legacy stream. */
  public void convert(Source source, Transform transform, Output output, long stream) {
    if (transform != null) transform.checkLengths(source);
    if (source != null && source.arrayImages() != null)
      convertImagesNative(source, source.arrayImages(), transform, output, stream); // pinned for the call
    else
      convertNative(source, transform, output, stream);
    if (transform != null) transform.augmentCalled(null);
  }

  public void convert(Source source, Transform transform, Output output) { convert(source, transform, output, 0); }
%}

%typemap(javainterfaces) ferry_batch_s "AutoCloseable"
%typemap(javacode) ferry_batch_s %{
  Object[] keepAlive;

  /**
   * Releases the batch (ferry_batch_release) without waiting: a batch still in flight finishes on
   * its own, and its memory goes back in stream order. Idempotent; other methods then throw
   * FerryException.InvalidHandle. A {@link Tensor} from {@link #retainOutput()} stays valid.
   */
  @Override
  public void close() {
    delete();
    keepAlive = null;
  }

  /**
   * A new reference to the output, valid until the Tensor is closed (or, dropped, collected with
   * its views), even after this batch is closed and the context closed. Read it after
   * {@link #await()}. Cheap; each call gives its own Tensor.
   */
  public Tensor retainOutput() { return new Tensor(retainOutputReference()); }

  /** The state and output, e.g. "Batch(complete, float32 NCHW [2, 3, 224, 224] on CPU, ...)". */
  @Override
  public String toString() { return "Batch(" + (swigCPtr == 0 ? "closed" : describe()) + ")"; }
%}

%typemap(javainterfaces) ferry_source "AutoCloseable"
%typemap(javacode) ferry_source %{
  java.nio.ByteBuffer buffer;

  /** Frees the native descriptor. Idempotent. */
  @Override
  public void close() { delete(); }

  /**
   * Uses a direct ByteBuffer (from its position to its limit) as the batch's pixels, without a
   * copy. A batch submitted from it keeps the buffer reachable until ferry no longer reads it.
   */
  public Source setBuffer(java.nio.ByteBuffer buffer) {
    long address = Ferry.directBufferAddress(buffer);
    if (images != null) {
      clearSampleDescs();
      images = null;
    }
    setData(address + buffer.position());
    setBytes(buffer.remaining());
    clearSamples();
    this.buffer = buffer;
    return this;
  }

  Image[] images;

  /**
   * One image of a batch whose images differ in size ({@link Source#setImages}): h x w x c uint8
   * pixels in the source's layout, in a direct ByteBuffer (from its position to its limit; kept
   * reachable by a submitted batch until ferry no longer reads it, as {@link Source#setBuffer}) or in
   * a byte[] (pinned, or copied by the JVM, during submit, which then returns once ferry has read
   * it). rowStride: the bytes from one row to the next (an OpenCV step, a region of interest; in
   * NCHW within each channel's plane, planes h rows apart); 0: packed.
   */
  public static final class Image {
    final java.nio.ByteBuffer buffer;
    final byte[] array;
    final long h, w, c, rowStride;

    private Image(java.nio.ByteBuffer buffer, byte[] array, long h, long w, long c, long rowStride) {
      this.buffer = buffer;
      this.array = array;
      this.h = h;
      this.w = w;
      this.c = c;
      this.rowStride = rowStride;
    }

    /** h x w x c pixels, rows packed, in a direct ByteBuffer. */
    public static Image of(java.nio.ByteBuffer pixels, long h, long w, long c) { return of(pixels, h, w, c, 0); }

    /** h x w x c pixels with rows rowStride bytes apart, in a direct ByteBuffer. */
    public static Image of(java.nio.ByteBuffer pixels, long h, long w, long c, long rowStride) {
      return new Image(pixels, null, h, w, c, rowStride);
    }

    /** h x w x c pixels, rows packed, in a byte[]. */
    public static Image of(byte[] pixels, long h, long w, long c) { return of(pixels, h, w, c, 0); }

    /** h x w x c pixels with rows rowStride bytes apart, in a byte[]. */
    public static Image of(byte[] pixels, long h, long w, long c, long rowStride) {
      return new Image(null, pixels, h, w, c, rowStride);
    }

    public long height() { return h; }
    public long width() { return w; }
    public long channels() { return c; }
    public long rowStride() { return rowStride; }

    @Override
    public String toString() {
      return "Image(" + h + " x " + w + " x " + c + (rowStride != 0 ? ", rows " + rowStride + " bytes apart" : "")
          + (array != null ? ", byte[" + array.length + "])" : buffer != null ? ", " + buffer + ")" : ", null)");
    }
  }

  /**
   * A batch of images each at its own size (ferry_source.sample_descs), one channel count: n is
   * images.length, c theirs. Set the layout first (NHWC unless set). A resize
   * ({@link Transform#setResize}), or per-sample crops of one size, give the one output size. Replaces
   * the batch-wide pixels: data, bytes, h, w and the strides become 0 (setBuffer goes back).
   * Throws FerryException.InvalidArgument naming images[i] for a null image, null pixels (or a
   * ByteBuffer that is not direct), a size that is not positive, a channel count unlike images[0]'s,
   * a row stride below a row, or pixels that do not fit the buffer; and for an empty list.
   */
  public Source setImages(Image... images) {
    if (images == null || images.length == 0)
      throw new FerryException.InvalidArgument("images is " + (images == null ? "null" : "empty")
          + ": at least one Source.Image is required");
    Image[] kept = images.clone();
    boolean planar = getLayout() == Layout.NCHW;
    long[] descs = new long[7 * kept.length];
    for (int i = 0; i < kept.length; ++i) {
      Image image = kept[i];
      String name = "images[" + i + "]";
      if (image == null) throw new FerryException.InvalidArgument(name + " is null: a Source.Image is required");
      if (image.buffer == null && image.array == null)
        throw new FerryException.InvalidArgument(name + " has null pixels: a direct ByteBuffer or a byte[] is required");
      if (image.buffer != null && !image.buffer.isDirect())
        throw new FerryException.InvalidArgument(name + " is in a heap ByteBuffer: use ByteBuffer.allocateDirect, or"
            + " a byte[]");
      if (image.h <= 0 || image.w <= 0 || image.c <= 0)
        throw new FerryException.InvalidArgument(name + " is " + image.h + " x " + image.w + " x " + image.c
            + " (h x w x c): each must be positive");
      if (image.c != kept[0].c)
        throw new FerryException.InvalidArgument(name + " has " + image.c + " channels but images[0] has "
            + kept[0].c + ": the images of a batch share one channel count");
      long row = planar ? image.w : image.w * image.c;
      if (image.rowStride != 0 && image.rowStride < row)
        throw new FerryException.InvalidArgument(name + ".rowStride is " + image.rowStride + " but a row of "
            + image.w + (planar ? "" : " x " + image.c) + " pixels is " + row + " bytes");
      long rows = planar ? image.h * image.c : image.h;
      long need;
      try {
        need = image.rowStride == 0 ? Math.multiplyExact(Math.multiplyExact(image.h, image.w), image.c)
                                    : Math.addExact(Math.multiplyExact(rows - 1, image.rowStride), row);
      } catch (ArithmeticException e) {
        throw new FerryException.InvalidArgument(name + " is " + image.h + " x " + image.w + " x " + image.c
            + ": its size overflows 64 bits");
      }
      long address = 0, bytes;
      if (image.buffer != null) {
        address = Ferry.directBufferAddress(image.buffer) + image.buffer.position();
        bytes = image.buffer.remaining();
      } else {
        bytes = image.array.length; // the address comes when submit pins the array
      }
      if (need > bytes)
        throw new FerryException.InvalidArgument(name + " is " + image.h + " x " + image.w + " x " + image.c
            + (image.rowStride != 0 ? " with rows " + image.rowStride + " bytes apart" : "") + ", " + need
            + " bytes, but its " + (image.buffer != null ? "buffer" : "byte[]") + " holds " + bytes);
      long[] desc = {address, bytes, image.h, image.w, planar && image.rowStride != 0 ? image.rowStride * image.h : 0,
                     image.rowStride, 0};
      System.arraycopy(desc, 0, descs, 7 * i, 7);
    }
    clearSamples();
    setSampleDescsNative(descs); // sets n
    setC(kept[0].c);
    setData(0); setBytes(0); setSampleBytes(0); setH(0); setW(0);
    setStrideN(0); setStrideC(0); setStrideH(0); setStrideW(0);
    buffer = null;
    this.images = kept;
    return this;
  }

  /** {@link #setImages(Image...)} from a list. */
  public Source setImages(java.util.List<Image> images) {
    return setImages(images == null ? null : images.toArray(new Image[0]));
  }

  /** Per image, its byte[] (null for a ByteBuffer); null where no image has a byte[]. */
  Object[] arrayImages() {
    if (images == null) return null;
    Object[] arrays = new Object[images.length];
    boolean any = false;
    for (int i = 0; i < images.length; ++i) {
      arrays[i] = images[i].array;
      any |= images[i].array != null;
    }
    return any ? arrays : null;
  }

  /** Shape of the batch: n images of h x w x c (layout NHWC unless set). */
  public Source setShape(long n, long h, long w, long c) {
    setN(n); setH(h); setW(w); setC(c);
    return this;
  }

  /**
   * A batch of n camera or video frames of h x w pixels in {@code format} (ferry_source.format): each
   * decoded to R, G, B in the conversion, then transformed as a 3-channel image (a channel map of 2, 1,
   * 0 gives BGR). The pixels are one buffer ({@link #setBuffer}, or submit's byte[]): frame i at
   * i * strideN (0: one after another), its planes laid out as the format says (NV12: the Y rows, then
   * the U,V rows), or where {@link #setPlaneOffsets} and {@link #setPlanePitches} put them. Sets c to 3,
   * the layout to NHWC and the channel strides to 0; the colour options keep their values (BT601,
   * LIMITED, CHROMA_NEAREST unless set). ferry checks the rest at submit (FerryException naming the
   * field: source.bytes for a buffer too small for the frames, ...).
   */
  public Source setFrame(long n, long h, long w, PixelFormat format) {
    setFormat(format);
    setN(n); setH(h); setW(w); setC(3);
    setLayout(Layout.NHWC);
    setStrideC(0); setStrideH(0); setStrideW(0);
    return this;
  }

  /** {@link #setFrame(long, long, long, PixelFormat)} with the format by name: see {@link PixelFormat#parse}. */
  public Source setFrame(long n, long h, long w, String format) {
    return setFrame(n, h, w, PixelFormat.parse(format));
  }

  /** The format by name ("nv12", "yuyv", "bayer_rggb", ...): see {@link PixelFormat#parse}. */
  public Source setFormat(String name) {
    setFormat(PixelFormat.parse(name));
    return this;
  }

  /** A YUV frame's matrix by name: "bt601", "bt709" or "bt2020". */
  public Source setColorMatrix(String name) {
    setColorMatrix(ColorMatrix.parse(name));
    return this;
  }

  /** A YUV frame's range by name: "limited" or "full". */
  public Source setColorRange(String name) {
    setColorRange(ColorRange.parse(name));
    return this;
  }

  /** How a YUV frame's chroma reaches every pixel, by name: "nearest" or "linear". */
  public Source setChromaFilter(String name) {
    setChromaFilter(ChromaFilter.parse(name));
    return this;
  }

  /**
   * Where each frame's planes lie, in bytes from the frame's start: 1 to 3 values, plane 0 first (the
   * rest 0). All 0 (the default): the planes follow one another. For planes in separate buffers, give
   * the lowest address as the data and each plane's distance from it.
   */
  public Source setPlaneOffsets(long... values) {
    setPlaneOffsetsNative(values);
    return this;
  }

  /** The bytes from one row of each plane to the next (1 to 3 values; 0: the format's default). */
  public Source setPlanePitches(long... values) {
    setPlanePitchesNative(values);
    return this;
  }

  /** The three plane offsets (ferry_source.plane_offset). */
  public long[] planeOffsets() { return new long[] {planeOffsetAt(0), planeOffsetAt(1), planeOffsetAt(2)}; }

  /** The three plane pitches (ferry_source.plane_pitch). */
  public long[] planePitches() { return new long[] {planePitchAt(0), planePitchAt(1), planePitchAt(2)}; }
%}

%typemap(javainterfaces) ferry_transform "AutoCloseable"
%typemap(javacode) ferry_transform %{
  private long meanLength, stdLength, perSampleMeanLength, perSampleStdLength, perSampleCropLength,
      perSampleMirrorLength, letterboxValueLength, perSampleWindowLength;

  /** Frees the native descriptor. Idempotent. */
  @Override
  public void close() { delete(); }

  /**
   * Output channel k reads input channel values[k]; sets outChannels to values.length (1 to 4).
   * BGR to RGB: 2, 1, 0; BGRA to RGB: 2, 1, 0; gray to RGB: 0, 0, 0.
   */
  public Transform setChannelMap(int... values) {
    setChannelMapNative(values);
    setOutChannels(values.length);
    return this;
  }

  /**
   * The mean subtracted from each output channel (after scale): one value for every channel, or
   * exactly one per output channel (the source's c, or outChannels; padChannelsTo4 adds none).
   * Checked at submit, where the channels are known: any other length throws
   * FerryException.InvalidArgument naming mean, its length and the channel count.
   */
  public Transform setMean(float... values) {
    setMeanValues(values);
    meanLength = values.length;
    return this;
  }

  /** The std each output channel is divided by: lengths as for {@link #setMean}. */
  public Transform setStd(float... values) {
    setStdValues(values);
    stdLength = values.length;
    return this;
  }

  /** Per-sample means: `samples` rows of one value per output channel (checked at submit). */
  public Transform setPerSampleMean(float[] values, long samples) {
    setPerSampleMeanNative(values, samples);
    perSampleMeanLength = values.length;
    return this;
  }

  /** Per-sample stds: `samples` rows of one value per output channel (checked at submit). */
  public Transform setPerSampleStd(float[] values, long samples) {
    setPerSampleStdNative(values, samples);
    perSampleStdLength = values.length;
    return this;
  }

  /** x, y, w, h per sample, flattened. */
  public Transform setPerSampleCrop(long[] values) {
    setPerSampleCropNative(values);
    perSampleCropLength = values.length;
    return this;
  }

  /** Mirror bits per sample. */
  public Transform setPerSampleMirror(byte[] values) {
    setPerSampleMirrorNative(values);
    perSampleMirrorLength = values.length;
    return this;
  }

  /**
   * Resizes each sample's window to width x height in the same pass (on a GPU or the CPU backend,
   * the same values). 0, 0: no resize.
   */
  public Transform setResize(long width, long height) {
    setResizeW(width);
    setResizeH(height);
    return this;
  }

  /** The interpolation by name: see {@link Interpolation#parse}. */
  public Transform setInterpolation(String name) {
    setInterpolation(Interpolation.parse(name));
    return this;
  }

  /** The resize mode by name: "stretch", "letterbox" or "shorter_side". */
  public Transform setResizeMode(String name) {
    setResizeMode(ResizeMode.parse(name));
    return this;
  }

  /**
   * The bars' value per output channel, in output units (LETTERBOX, and SHORTER_SIDE where the resized
   * image is smaller than the output): one value for every channel, or one per output channel
   * (checked at submit).
   */
  public Transform setLetterboxValue(float... values) {
    setLetterboxValueNative(values);
    letterboxValueLength = values.length;
    return this;
  }

  /** The resized window for the batch, in source pixels with fractional edges. */
  public Transform setWindow(float x, float y, float w, float h) {
    try (RectF window = new RectF()) {
      window.setX(x);
      window.setY(y);
      window.setW(w);
      window.setH(h);
      setWindow(window);
    }
    return this;
  }

  /** The resized window per sample: x, y, w, h per sample, flattened (sizes may differ). */
  public Transform setPerSampleWindow(float[] values) {
    setPerSampleWindowNative(values);
    perSampleWindowLength = values.length;
    return this;
  }

  /** The output dtype by name: see {@link DType#parse}. */
  public Transform setOutDtype(String name) {
    setOutDtype(DType.parse(name));
    return this;
  }

  /** The output layout by name, "NCHW" or "NHWC". */
  public Transform setOutLayout(String name) {
    setOutLayout(Layout.parse(name));
    return this;
  }

  /**
   * Throws FerryException.InvalidArgument where an array's length does not fit source's channels, and
   * FerryException.InvalidHandle where the Augment is closed; makes room for the Augment's draws (before each call).
   */
  void checkLengths(Source source) {
    prepareAugment(source);
    checkValueLengths(source, meanLength, stdLength, perSampleMeanLength, perSampleStdLength, perSampleCropLength,
        perSampleMirrorLength, letterboxValueLength, perSampleWindowLength);
  }
%}

%typemap(javainterfaces) ferry_tensor_info "AutoCloseable"
%typemap(javacode) ferry_tensor_info %{
  /** Frees the native descriptor. Idempotent. */
  @Override
  public void close() { delete(); }

  /** The shape, in memory-layout order (N,C,H,W or N,H,W,C). */
  public long[] shape() {
    long[] shape = new long[getNdim()];
    for (int i = 0; i < shape.length; ++i) shape[i] = shapeAt(i);
    return shape;
  }

  /** The strides in bytes, in the order of {@link #shape()}. */
  public long[] strides() {
    long[] strides = new long[getNdim()];
    for (int i = 0; i < strides.length; ++i) strides[i] = strideAt(i);
    return strides;
  }

  /** e.g. "TensorInfo(float32 NCHW [2, 3, 224, 224] on CPU, 1204224 bytes at 0x7f.. (strides ...))". */
  @Override
  public String toString() { return "TensorInfo(" + (swigCPtr == 0 ? "closed" : describe()) + ")"; }
%}
